// run() against the in-process test server (src/server): what the generator reports is what the
// server saw.
#include <gtest/gtest.h>

#include <memory>

#include "loadgen/runner.h"
#include "server/server.h"
#include "support/in_process.h"

namespace stampede::loadgen {
namespace {

using std::chrono::milliseconds;
using testing::must_run;
using testing::start_server;

// `requests` requests over `concurrency` connections (kept alive unless `keep_alive` is false),
// on one worker; run_against() points it at its server.
Config load(std::uint64_t requests, std::uint32_t concurrency, bool keep_alive = true) {
  Config c;
  c.cores = 1;
  c.timeout = std::chrono::seconds(10);
  c.max_requests = requests;
  c.concurrency = concurrency;
  c.keep_alive = keep_alive;
  return c;
}

// What the generator and the server counted of one run.
struct BothSides {
  RunResult run;
  server::ServerTotals server;
};

// Runs `c` against a test server started with `options` (stopped before this returns).
BothSides run_against(const server::ServerOptions& options, Config c) {
  auto s = start_server(options);
  if (!s) return {};  // start_server recorded the failure
  c.url = "http://127.0.0.1:" + std::to_string(s->port()) + "/";
  BothSides both;
  both.run = must_run(c);
  both.server = s->stop();
  return both;
}

// 1000 requests over 10 clients on `cores` cores: all of them reach the server, over
// `connections` sockets.
void expect_exact_counts(bool keep_alive, std::uint32_t cores, std::uint64_t connections) {
  Config c = load(1000, 10, keep_alive);
  c.cores = cores;
  const auto [r, totals] = run_against({}, c);
  EXPECT_EQ(r.total_requests, 1000u);
  EXPECT_EQ(r.total_errors, 0u);
  EXPECT_EQ(totals.requests, 1000u);
  EXPECT_EQ(totals.connections, connections);
}

TEST(AgainstServer, ExactCountsWithKeepAlive) {
  expect_exact_counts(/*keep_alive=*/true, /*cores=*/2, /*connections=*/10);
}

TEST(AgainstServer, ExactCountsWithoutKeepAlive) {
  expect_exact_counts(/*keep_alive=*/false, /*cores=*/1, /*connections=*/1000);
}

TEST(AgainstServer, MoreClientsThanRequests) {
  Config c = load(20, 64);
  c.cores = 2;
  const auto [r, totals] = run_against({}, c);
  EXPECT_EQ(r.total_requests, 20u);
  EXPECT_EQ(totals.requests, 20u);
}

TEST(AgainstServer, ServerErrorsAreCountedByStatus) {
  server::ServerOptions options;
  options.error_status = 503;
  options.error_percent = 50;
  auto [r, totals] = run_against(options, load(400, 4));
  EXPECT_EQ(r.total_requests, 400u);
  EXPECT_EQ(r.total_errors, totals.errors);
  EXPECT_GT(r.total_errors, 0u);
  EXPECT_LT(r.total_errors, 400u);
  EXPECT_EQ(r.error_codes["503"], totals.errors);
  EXPECT_EQ(r.status_counts[200] + r.status_counts[503], 400u);
}

TEST(AgainstServer, SlowServerTimesOut) {
  server::ServerOptions options;
  options.delay = milliseconds(500);
  Config c = load(6, 3);
  c.timeout = milliseconds(50);
  auto [r, totals] = run_against(options, c);
  EXPECT_EQ(r.total_requests, 6u);
  EXPECT_EQ(r.error_codes["ETIMEDOUT"], 6u);
}

TEST(AgainstServer, CountsTheInstanceHeader) {
  server::ServerOptions options;
  options.id = "a";
  Config c = load(50, 2);
  c.count_headers = {"x-instance"};
  auto [r, totals] = run_against(options, c);
  EXPECT_EQ(r.header_counts["x-instance"]["a"], 50u);
}

}  // namespace
}  // namespace stampede::loadgen
