// --shard K/N, --save and stampede merge: the shards of one run make the single run's requests,
// and their merged report is the single run's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loadgen/merge.h"
#include "loadgen/result_file.h"
#include "loadgen/runner.h"
#include "support/in_process.h"
#include "support/process.h"
#include "support/scripted_server.h"
#include "support/target_log.h"
#include "support/temp_dir.h"

namespace stampede::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::size_t line_count(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Four shards of -n 1001 --index: the server sees 1..1001 each once, and the merged result
// counts exactly what the server saw.
TEST(Shards, IndexesOfAllShardsAreOneToTotalAndMergedCountsAreExact) {
  TargetLog targets;
  ScriptedServer server(targets.recorder());
  loadgen::ResultMerger merger(/*force=*/false);
  for (std::uint32_t k = 1; k <= 4; ++k) {
    loadgen::Config c;
    c.url = server.url("/item/ID");
    c.index_param = "ID";
    c.max_requests = 1001;
    c.concurrency = 6;
    c.cores = 2;
    c.keep_alive = true;
    c.timeout = std::chrono::seconds(10);
    c.shard = loadgen::Shard{k, 4};
    const loadgen::RunResult r = must_run(c);
    EXPECT_EQ(r.total_requests, k == 1 ? 251u : 250u) << k;
    EXPECT_EQ(r.clients, k <= 2 ? 2u : 1u) << k;
    auto saved = loadgen::parse_result_line(loadgen::to_result_line(r, c, "host", 0));
    ASSERT_TRUE(saved.ok()) << saved.error().message;
    ASSERT_TRUE(merger.add(std::move(saved).value(), "shard " + std::to_string(k)).ok());
  }
  auto merged = merger.finish();
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_EQ(merged->result.total_requests, 1001u);
  EXPECT_EQ(merged->result.total_requests, server.requests());
  EXPECT_EQ(merged->result.max_requests, 1001u);
  EXPECT_EQ(merged->result.clients, 6u);
  EXPECT_EQ(merged->result.latency.count(), 1001u);
  EXPECT_EQ(merged->shards.size(), 4u);
  EXPECT_TRUE(targets.each_once("/item/", 1001));
}

// The check above can fail: an id missing, an id sent twice, one request too many are each
// named (the recorder is called as the server would call it, without a socket).
TEST(Shards, TargetLogNamesTheIdsNotSeenOnce) {
  const auto get = [](int id) { return "GET /item/" + std::to_string(id) + " HTTP/1.1\r\n\r\n"; };
  TargetLog log;
  const ScriptedServer::Script record = log.recorder();
  for (int id : {1, 2, 3})
    EXPECT_THAT(record(0, get(id)).bytes, StartsWith("HTTP/1.1 200"));
  EXPECT_TRUE(log.each_once("/item/", 3));
  const ::testing::AssertionResult missing = log.each_once("/item/", 4);
  EXPECT_FALSE(missing);
  EXPECT_THAT(missing.message(), HasSubstr("3 requests for 4 ids; 1 ids not seen once: 4 (0x)"));
  record(0, get(2));
  const ::testing::AssertionResult twice = log.each_once("/item/", 3);
  EXPECT_FALSE(twice);
  EXPECT_THAT(twice.message(), HasSubstr("4 requests for 3 ids; 1 ids not seen once: 2 (2x)"));
  TargetLog extra;
  for (int id : {1, 2, 3})
    extra.recorder()(0, get(id));
  EXPECT_FALSE(extra.each_once("/item/", 2)) << "a request past the last id";
}

// A one-shard result merged prints the plain run's report byte for byte (then the shard table);
// the same for --json, besides the merge's own key.
TEST(Shards, MergedSingleResultIsThePlainReport) {
  auto s = start_server();
  ASSERT_TRUE(s);
  const std::string url = "http://127.0.0.1:" + std::to_string(s->port()) + "/";
  const TempDir dir;
  const std::string text_file = dir.path() + "/text.result",
                    json_file = dir.path() + "/json.result";
  const RunResult plain =
      run_stampede({url, "-n", "300", "-c", "2", "-k", "--quiet", "--save", text_file});
  ASSERT_EQ(plain.status, 0) << plain.err;
  const RunResult merged = run_stampede({"merge", text_file});
  ASSERT_EQ(merged.status, 0) << merged.err;
  EXPECT_THAT(merged.out, StartsWith(plain.out));
  EXPECT_THAT(merged.out.substr(plain.out.size()), StartsWith("\nShards (1 merged"));

  const RunResult json_run = run_stampede({url, "-n", "300", "-c", "2", "-k", "--quiet", "--json",
                                           "--rps", "3000", "--save", json_file});
  ASSERT_EQ(json_run.status, 0) << json_run.err;
  const RunResult json_merged = run_stampede({"merge", "--json", json_file});
  ASSERT_EQ(json_merged.status, 0) << json_merged.err;
  auto merged_json = nlohmann::ordered_json::parse(json_merged.out);
  ASSERT_TRUE(merged_json.contains("merge"));
  merged_json.erase("merge");
  EXPECT_EQ(merged_json, nlohmann::ordered_json::parse(json_run.out));
  s->stop();
}

// Two shard processes with --start-at, --rps and --save -, their stdout concatenated as kubectl
// logs gives it, merged from stdin: the server's count, and a start spread far below a second.
// -n 400 is split exactly between the shards (200 each), so the count is exact however late a
// stalled host sends them (-t is only the bound).
TEST(Shards, ShardProcessesStartTogetherAndMergeFromStdin) {
  auto s = start_server();
  ASSERT_TRUE(s);
  const std::string url = "http://127.0.0.1:" + std::to_string(s->port()) + "/";
  const auto at = std::chrono::system_clock::now() + std::chrono::milliseconds(700);
  const std::string start_at =
      std::to_string(std::chrono::duration<double>(at.time_since_epoch()).count());
  std::vector<std::unique_ptr<ChildProcess>> shards;
  for (const char* shard : {"1/2", "2/2"}) {
    shards.push_back(std::make_unique<ChildProcess>(std::vector<std::string>{
        STAMPEDE_BINARY, url, "--rps", "400", "-n", "400", "-t", "15", "-c", "4", "-k", "--quiet",
        "--shard", shard, "--start-at", start_at, "--save", "-"}));
  }
  std::string logs;
  for (auto& p : shards) {
    ASSERT_EQ(p->wait(std::chrono::seconds(20)), 0) << p->stderr_text();
    logs += p->stderr_text() + p->stdout_text();  // report lines in between are skipped
  }
  const TempDir dir;
  write(dir.path() + "/logs", logs);
  const RunResult merged = run_command(
      {"/bin/sh", "-c", std::string(STAMPEDE_BINARY) + " merge --json - < " + dir.path() + "/logs"},
      std::chrono::seconds(20));
  ASSERT_EQ(merged.status, 0) << merged.err;
  const auto j = nlohmann::json::parse(merged.out);
  const auto totals = s->stop();
  EXPECT_EQ(j["totalRequests"].get<std::uint64_t>(), totals.requests);
  EXPECT_EQ(totals.requests, 400u);
  EXPECT_LT(j["merge"]["startSpreadMs"].get<double>(), 250.0);
  EXPECT_EQ(j["merge"]["shards"].size(), 2u);
}

loadgen::Config shard_config(std::uint32_t k, std::uint32_t n) {
  loadgen::Config c;
  c.url = "http://127.0.0.1:9/";
  c.max_requests = 100;
  c.shard = loadgen::Shard{k, n};
  return c;
}

std::string shard_line(std::uint32_t k, std::uint32_t n, std::uint64_t total = 100) {
  loadgen::Config c = shard_config(k, n);
  c.max_requests = total;
  loadgen::RunResult r;
  r.shard = c.shard;
  r.url = c.url;
  r.total_requests = 3;
  r.latency.record(1000);
  r.latency.record(2000);
  r.latency.record(3000);
  r.elapsed_ns = 1'000'000;
  r.start_unix_ns = 1'796'335'200'000'000'000;
  return loadgen::to_result_line(r, c, "h", 0) + "\n";
}

// Every bad input: exit status 2, one line on stderr naming the problem, nothing on stdout.
TEST(Shards, BadInputIsOneLineAndExitTwo) {
  const TempDir dir;
  const auto file = [&](const std::string& name, const std::string& text) {
    write(dir.path() + "/" + name, text);
    return dir.path() + "/" + name;
  };
  const std::string one = file("one", shard_line(1, 2)), two = file("two", shard_line(2, 2));
  const std::string other = file("other", shard_line(2, 2, 200));
  std::string line = shard_line(1, 2);
  const std::string truncated = file("truncated", line.substr(0, line.size() / 2));
  const std::string corrupt = file("corrupt", std::string(loadgen::kResultLinePrefix) + ",}\n");
  std::string future = line;
  future.replace(future.find("\"version\":1"), 11, "\"version\":99");
  const std::string later = file("later", future);
  std::string bad_hdr = line;
  char& flipped = bad_hdr[bad_hdr.find("\"hdr\":\"") + 7 + 30];  // in the deflated counts
  flipped = flipped == 'A' ? 'B' : 'A';
  const std::string damaged = file("damaged", bad_hdr);
  const std::string url = "http://127.0.0.1:9/";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{url, "--shard", "5/4"}, "--shard: K must be between 1 and N"},
      {{url, "--shard", "0/4"}, "--shard: K must be between 1 and N"},
      {{url, "--shard", "1/0"}, "--shard: N must be at least 1"},
      {{url, "--shard", "x"}, "--shard: expected K/N"},
      {{url, "-c", "2", "--shard", "1/4"}, "-c 2 with --shard 1/4"},
      {{url, "-n", "3", "--shard", "1/4"}, "-n 3 with --shard 1/4"},
      {{url, "--start-at", "soon"}, "--start-at: expected an RFC 3339 time"},
      {{"merge", one}, "shard 2 of 2 missing"},
      {{"merge", one, one, two}, "shard 1/2 twice"},
      {{"merge", one, other}, "max_requests differs"},
      {{"merge", one, truncated}, "truncated or corrupt"},
      {{"merge", corrupt}, "truncated or corrupt"},
      {{"merge", later}, "version 99 is newer"},
      {{"merge", damaged}, "corrupt result: latency"},
      {{"merge", dir.path() + "/none"}, "not a regular file"},
      {{"merge", dir.path()}, "not a regular file"},
      {{"merge", file("empty", "hello\n")}, "no stampede result"},
      {{"merge", one, two, "--max-p99", "x"}, "--max-p99: expected a number"},
      // The generator's rule for thresholds, word for word (one to_thresholds for both).
      {{"merge", one, two, "--max-error-rate", "101"},
       "--max-error-rate: expected a percentage from 0 to 100, got '101'"},
  };
  for (const auto& [args, message] : cases) {
    const RunResult r = run_stampede(args);
    const std::string shown = ::testing::PrintToString(args);
    EXPECT_EQ(r.status, 2) << shown << r.err;
    EXPECT_THAT(r.err, StartsWith("stampede: ")) << shown;
    EXPECT_THAT(r.err, HasSubstr(message)) << shown;
    EXPECT_EQ(line_count(r.err), 1u) << shown << r.err;
    EXPECT_EQ(r.out, "") << shown;
  }
  // --force merges the mismatch anyway and says so; the thresholds apply to the merged result.
  const RunResult forced = run_stampede({"merge", "--force", one, other, "--max-p99", "0.001"});
  EXPECT_EQ(forced.status, 3) << forced.err;
  EXPECT_THAT(forced.out, HasSubstr("Completed requests:  6\n"));
  EXPECT_THAT(forced.out, HasSubstr("Merged with --force: max_requests differs"));
  EXPECT_THAT(forced.err, HasSubstr("threshold crossed: p99"));
}

}  // namespace
}  // namespace stampede::testing
