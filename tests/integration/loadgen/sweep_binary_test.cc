// `stampede URL --sweep-connections ...` as a user runs it: the knee of a server whose capacity is
// known by construction, the JSON and HTML outputs, and the bad input refused before anything
// runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/process.h"
#include "support/temp_dir.h"
#include "support/test_server.h"

namespace stampede::testing {
namespace {

using ::testing::HasSubstr;

// Four requests at a time, 40 ms each: at most 100 req/s. Without keep-alive each request has
// its own connection, so connections beyond four wait for an accept and add latency, not
// throughput: the knee is at 4 by construction. 40 ms keeps a loaded host's cost of reconnecting
// (a few ms) small beside the delay, so four connections come close to the cap.
server::ServerOptions four_at_a_time() {
  server::ServerOptions options;
  options.delay = std::chrono::milliseconds(40);
  options.max_connections = 4;
  return options;
}

TEST(SweepBinary, NamesTheKneeOfAServerThatServesFourAtATime) {
  auto server = start_server(four_at_a_time());
  ASSERT_TRUE(server);
  TempDir dir;
  const std::string html = dir.path() + "/sweep.html";
  const std::string url = "http://127.0.0.1:" + std::to_string(server->port()) + "/";
  const auto r = run_stampede(
      {url, "--sweep-connections", "1,2,4,16", "-t", "0.5", "--json", "--quiet", "--html", html});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  ASSERT_EQ(json["steps"].size(), 4u);
  const unsigned counts[] = {1, 2, 4, 16};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(json["steps"][i]["connections"], counts[i]);
    EXPECT_GT(json["steps"][i]["requests"], 0u);
    EXPECT_EQ(json["steps"][i]["errors"], 0u);
  }
  // 1 -> 4 connections: throughput about four times (ideal 25 and 100 req/s; a loaded host's
  // stalls cost each reconnect, hence the margin of 2), 16: no more throughput, four times the
  // latency.
  EXPECT_GT(json["steps"][2]["rps"].get<double>(), 2 * json["steps"][0]["rps"].get<double>());
  EXPECT_GT(json["steps"][3]["p50_ms"].get<double>(), 2 * json["steps"][2]["p50_ms"].get<double>());
  ASSERT_TRUE(json["knee"].is_object()) << json["steps"].dump();
  EXPECT_EQ(json["knee"]["connections"], 4);
  EXPECT_THAT(json["finding"].get<std::string>(), HasSubstr("knee at 4 connections"));
  const std::string text = testing::read_file(html);
  EXPECT_THAT(text, HasSubstr("Throughput against connections"));
  EXPECT_THAT(text, HasSubstr("knee at 4 connections"));
}

TEST(SweepBinary, TextReportHasAStepTableAndTheKneeLine) {
  auto server = start_server();
  ASSERT_TRUE(server);
  const std::string url = "http://127.0.0.1:" + std::to_string(server->port()) + "/";
  const auto r = run_stampede({url, "-k", "--sweep-connections", "1..2x2", "-n", "50"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Concurrency sweep of " + url + " (keep-alive, 50 requests"));
  EXPECT_THAT(r.out, HasSubstr("\n          1        50       0"));
  EXPECT_THAT(r.out, HasSubstr("\n          2        50       0"));
  EXPECT_THAT(r.err, HasSubstr("sweep: 2 connections: "));
}

TEST(SweepBinary, BadInputIsOneLineAndExitTwo) {
  const std::string url = "http://127.0.0.1:9/";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{url, "--sweep-connections", "0"}, "--sweep-connections: a step needs at least 1"},
      {{url, "--sweep-connections", ""}, "--sweep-connections"},
      {{url, "--sweep-connections", "8,4,2"}, "--sweep-connections: the counts must go up"},
      {{url, "--sweep-connections", "x1"}, "--sweep-connections: 'x1' is not a whole number"},
      {{url, "--sweep-connections", "1..8x1"}, "the factor must be at least 2"},
      {{url, "--sweep-connections", "1,20000"}, "20000 is more than 10000"},
      {{url, "--sweep-connections", "1,2", "--rps", "100"}, "cannot go with --rps"},
      {{url, "--sweep-connections", "1,2", "-c", "4"}, "cannot go with -c"},
      {{url, "--sweep-connections", "1,2", "--save", "x.json"}, "cannot go with --save"},
      {{url, "--sweep-connections", "1,2", "--max-p99", "5"}, "cannot go with --max-p99"},
      {{url, "--sweep-connections", "1,2", "--shard", "1/2"}, "cannot go with --shard"},
      {{"ws://127.0.0.1:9/", "--sweep-connections", "1,2"}, "cannot go with a ws://"},
  };
  for (const auto& [args, message] : cases) {
    const auto r = run_stampede(args);
    EXPECT_EQ(r.status, 2) << args[2] << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr(message)) << args[2];
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

}  // namespace
}  // namespace stampede::testing
