// --http2 --shard K/N --save and stampede merge, in-process against the test server's h2c: the
// merged result's HTTP/2 figures (streams per connection, RST_STREAM and GOAWAY counts, the
// server's SETTINGS) are the single run's, as are its counts (--repeat's combine_runs and the
// counts that add: tests/unit/loadgen/h2_result_test.cc). Then the binary end to end: --save,
// --html and a crossed threshold (exit 3) with --http2, and `stampede merge --json` of the file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "loadgen/h2_stats.h"
#include "loadgen/merge.h"
#include "loadgen/result_file.h"
#include "loadgen/runner.h"
#include "server/server.h"
#include "support/in_process.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace stampede::testing {
namespace {

// -n 400 -c 2 --http2 --streams 4 against a server that allows 2 streams per connection.
loadgen::Config h2_config(const server::Server& s, loadgen::Shard shard) {
  loadgen::Config c = one_core_config("http://127.0.0.1:" + std::to_string(s.port()) + "/", 400, 2,
                                      std::chrono::seconds(10));
  c.http2 = true;
  c.streams = 4;
  c.shard = shard;
  return c;
}

TEST(H2Shards, MergedShardsHaveTheSingleRunsHttp2Figures) {
  auto s = start_server_with([](server::ServerOptions& o) { o.max_streams = 2; });
  ASSERT_TRUE(s);
  const loadgen::RunResult single = must_run(h2_config(*s, loadgen::Shard{}));
  ASSERT_TRUE(single.h2.server_settings.has_value());
  EXPECT_EQ(single.h2.server_settings->max_concurrent_streams, 2u);

  loadgen::ResultMerger merger(/*force=*/false);
  for (std::uint32_t k = 1; k <= 2; ++k) {
    const loadgen::Config c = h2_config(*s, loadgen::Shard{k, 2});
    const loadgen::RunResult r = must_run(c);
    EXPECT_EQ(r.total_requests, 200u) << k;
    auto saved = loadgen::parse_result_line(loadgen::to_result_line(r, c, "host", 0));
    ASSERT_TRUE(saved.ok()) << saved.error().message;
    ASSERT_TRUE(merger.add(std::move(saved).value(), "shard " + std::to_string(k)).ok());
  }
  s->stop();
  auto merged = merger.finish();
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  const loadgen::RunResult& m = merged->result;
  EXPECT_EQ(m.total_requests, single.total_requests);
  EXPECT_EQ(m.status_counts, single.status_counts);
  EXPECT_TRUE(m.http2);
  EXPECT_EQ(loadgen::h2_json(m.h2, m.streams), loadgen::h2_json(single.h2, single.streams));
  EXPECT_EQ(loadgen::h2_json(m.h2, m.streams).at("streamsUsed"), 2);
}

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(H2Shards, TheBinarySavesReportsAndHoldsThresholdsOverHttp2) {
  auto s = start_server();
  ASSERT_TRUE(s);
  const TempDir dir;
  const std::string saved = dir.file("run.result"), html = dir.file("report.html");
  const RunResult run =
      run_stampede({"http://127.0.0.1:" + std::to_string(s->port()) + "/", "--http2", "--streams",
                    "4", "-n", "40", "-c", "2", "--quiet", "--json", "--save", saved, "--html",
                    html, "--max-p99", "0.000001"});
  EXPECT_EQ(run.status, 3) << run.err;
  EXPECT_THAT(run.err, ::testing::StartsWith("stampede: threshold crossed: p99 "));
  const auto run_json = nlohmann::ordered_json::parse(run.out);
  EXPECT_EQ(run_json.at("totalRequests"), 40);
  EXPECT_EQ(run_json.at("http2").at("streamsPerConnection"), 4);
  EXPECT_THAT(file_text(saved), ::testing::HasSubstr(R"("version":2,)"));
  const std::string page = file_text(html);
  EXPECT_THAT(page, ::testing::HasSubstr("Streams/connection"));
  EXPECT_THAT(page, ::testing::HasSubstr("MAX_CONCURRENT_STREAMS 128"));  // serve's default

  const RunResult merged = run_stampede({"merge", "--json", saved});
  ASSERT_EQ(merged.status, 0) << merged.err;
  auto merged_json = nlohmann::ordered_json::parse(merged.out);
  merged_json.erase("merge");
  EXPECT_EQ(merged_json, run_json);
  s->stop();
}

}  // namespace
}  // namespace stampede::testing
