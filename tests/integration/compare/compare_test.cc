// --repeat and stampede compare end to end: the binary runs each side N times against test
// servers in this process, then compares the files it wrote. Two servers that differ (no delay
// against a 5 ms delay) give a significant p50 change and --fail-on's exit 3; two sets of runs
// of one server give no significant change in throughput. Bad input is one line and exit 2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/process.h"
#include "support/refusal.h"
#include "support/temp_dir.h"
#include "support/test_server.h"

namespace stampede::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string url_of(const server::Server& s) {
  return "http://127.0.0.1:" + std::to_string(s.port()) + "/";
}

// The table's line for `label` ("p50 ms"), or "" when there is none.
std::string table_line(const std::string& table, const std::string& label) {
  const std::size_t at = table.find("\n  " + label);
  if (at == std::string::npos) return "";
  const std::size_t end = table.find('\n', at + 1);
  return table.substr(at + 1, end - at - 1);
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// The issue's case: `serve --delay 0` against `--delay 5`, --repeat 5 -n 300 -c 4 each (-k: a
// connection per request would add only set-up time to both sides).
TEST(CompareServers, ADelayedServerIsSignificantlySlowerAndFailsTheGate) {
  server::ServerOptions slow_options;
  slow_options.delay = std::chrono::milliseconds(5);
  auto fast = start_server();
  auto slow = start_server(slow_options);
  ASSERT_TRUE(fast && slow);
  TempDir dir;
  const std::string base = dir.file("base.save"), cur = dir.file("cur.save");
  for (const auto& [server, file] : {std::pair{fast.get(), base}, std::pair{slow.get(), cur}}) {
    const auto r = run_stampede({url_of(*server), "--repeat", "5", "-n", "300", "-c", "4", "-k",
                                 "--quiet", "--save", file});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("Runs (5, one after another)"));
  }
  const auto table = run_stampede({"compare", base, cur});
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("Baseline: " + base + " (5 runs)"));
  EXPECT_THAT(table_line(table.out, "p50 ms"), HasSubstr("significantly slower (p=0.008)"));
  // Another port, so another URL: said, not refused.
  EXPECT_THAT(table.err, HasSubstr("warning: not the same test: url differs"));

  const auto gate = run_stampede({"compare", base, cur, "--fail-on", "p50:+10%"});
  EXPECT_EQ(gate.status, 3) << gate.err;
  EXPECT_THAT(gate.err, HasSubstr("stampede: regression: p50 +"));
  EXPECT_THAT(gate.err, HasSubstr("(limit +10%)"));
}

// Two sets of runs of one server. Throughput varies on a loaded machine, so the runs are paced
// (--rps 2000 -n 200): each run's rate is the schedule's whatever the load, within a fraction of
// a percent, and a stall near the end of a run moves one run, not the medians. --min-change 5
// leaves a margin far above that.
TEST(CompareServers, TwoSetsOfRunsOfOneServerShowNoSignificantThroughputChange) {
  auto s = start_server();
  ASSERT_TRUE(s);
  TempDir dir;
  const std::string base = dir.file("base.json"), cur = dir.file("cur.json");
  for (const std::string& file : {base, cur}) {
    const auto r = run_stampede({url_of(*s), "--repeat", "5", "--rps", "2000", "-n", "200", "-c",
                                 "4", "-k", "--quiet", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    write_file(file, r.out);
  }
  const auto table =
      run_stampede({"compare", base, cur, "--min-change", "5", "--fail-on", "rps:-5%"});
  EXPECT_EQ(table.status, 0) << table.out << table.err;
  EXPECT_THAT(table_line(table.out, "req/s"), HasSubstr("no significant change"));
  EXPECT_EQ(table.err, "");  // the same URL and options: no warning
  const auto j = run_stampede({"compare", base, cur, "--min-change", "5", "--json"});
  ASSERT_EQ(j.status, 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["baselineRuns"], 5);
  EXPECT_EQ(doc["rows"][0]["metric"], "rps");
  EXPECT_EQ(doc["rows"][0]["verdict"], "no change");
}

// --repeat's outputs: the JSON carries the combined result and every run; --save one line per
// run; a single run's JSON has no "repeat" key.
TEST(Repeat, JsonKeepsEveryRunAndTheCombinedResult) {
  auto s = start_server();
  ASSERT_TRUE(s);
  TempDir dir;
  const auto r = run_stampede({url_of(*s), "--repeat", "3", "-n", "20", "-c", "2", "--quiet",
                               "--json", "--save", dir.file("runs.save")});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["totalRequests"], 60);
  EXPECT_EQ(j["maxRequests"], 20);
  ASSERT_EQ(j["repeat"]["count"], 3);
  ASSERT_EQ(j["repeat"]["runs"].size(), 3u);
  for (const auto& run : j["repeat"]["runs"])
    EXPECT_EQ(run["totalRequests"], 20);
  std::ifstream saved(dir.file("runs.save"));
  std::string line;
  int lines = 0;
  while (std::getline(saved, line))
    lines += line.rfind(R"({"format":"stampede-result")", 0) == 0;
  EXPECT_EQ(lines, 3);
  const auto one = run_stampede({url_of(*s), "-n", "5", "-c", "1", "--quiet", "--json"});
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_FALSE(nlohmann::json::parse(one.out).contains("repeat"));
  // One run against three: compare reads them, and says it cannot tell.
  write_file(dir.file("one.json"), one.out);
  const auto c = run_stampede({"compare", dir.file("one.json"), dir.file("runs.save")});
  EXPECT_EQ(c.status, 0) << c.err;
  EXPECT_THAT(table_line(c.out, "p50 ms"),
              HasSubstr("cannot tell (1 and 3 runs: use --repeat 4 or more on each side)"));
  EXPECT_THAT(c.err, HasSubstr("maxRequests differs: 5 in"));
}

TEST(Repeat, SillyCountsAreRefused) {
  // One parse for every value (generator.cc, apply_distribution); a few through the binary.
  for (const char* n : {"0", "101", "x"})
    EXPECT_TRUE(refused({"http://127.0.0.1:9/", "--repeat", n, "-n", "1"}, "--repeat")) << n;
  EXPECT_TRUE(
      refused({"http://127.0.0.1:9/", "--repeat", "2", "--sweep-connections", "1,2"}, "--repeat"));
}

TEST(CompareInput, BadFilesAndLimitsAreOneLineAndExitTwo) {
  TempDir dir;
  auto s = start_server();
  ASSERT_TRUE(s);
  const auto run = run_stampede({url_of(*s), "-n", "3", "-c", "1", "--quiet", "--json"});
  ASSERT_EQ(run.status, 0) << run.err;
  const std::string good = dir.file("good.json");
  write_file(good, run.out);
  write_file(dir.file("text.txt"), "hello\n");
  write_file(dir.file("other.json"), R"({"scenario":"slow","runs":[1,2]})");
  nlohmann::json empty = nlohmann::json::parse(run.out);
  empty["totalRequests"] = 0;
  write_file(dir.file("zero.json"), empty.dump());
  EXPECT_TRUE(refused({"compare", good, dir.file("missing.json")}, "missing.json"));
  EXPECT_TRUE(refused({"compare", dir.file("text.txt"), good}, "text.txt: invalid JSON"));
  EXPECT_TRUE(refused({"compare", good, dir.file("other.json")}, "not a stampede result"));
  EXPECT_TRUE(refused({"compare", good, dir.file("zero.json")}, "has no requests"));
  EXPECT_TRUE(refused({"compare", good}, "files"));
  EXPECT_TRUE(refused({"compare", good, good, good}, "files: At Most 2"));
  EXPECT_TRUE(refused({"compare", good, good, "--fail-on", "p95:+10%"}, "unknown metric 'p95'"));
  EXPECT_TRUE(refused({"compare", good, good, "--min-change", "-1"}, "--min-change"));
  // The same file on both sides: one run each, nothing to say and nothing to fail.
  const auto same = run_stampede({"compare", good, good, "--fail-on", "p99:+1%"});
  EXPECT_EQ(same.status, 0) << same.err;
  EXPECT_THAT(same.out, HasSubstr("cannot tell (one run each: use --repeat)"));
  EXPECT_THAT(same.out, Not(HasSubstr("significantly")));
}

}  // namespace
}  // namespace stampede::testing
