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

Config config_for(const server::Server& s) {
  Config c;
  c.url = "http://127.0.0.1:" + std::to_string(s.port()) + "/";
  c.cores = 1;
  c.timeout = std::chrono::seconds(10);
  return c;
}

// 1000 requests over 10 clients on `cores` cores: all of them reach the server, over
// `connections` sockets.
void expect_exact_counts(bool keep_alive, std::uint32_t cores, std::uint64_t connections) {
  auto s = start_server();
  ASSERT_TRUE(s);
  Config c = config_for(*s);
  c.max_requests = 1000;
  c.concurrency = 10;
  c.cores = cores;
  c.keep_alive = keep_alive;
  RunResult r = must_run(c);
  const auto totals = s->stop();
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
  auto s = start_server();
  ASSERT_TRUE(s);
  Config c = config_for(*s);
  c.max_requests = 20;
  c.concurrency = 64;
  c.cores = 2;
  c.keep_alive = true;
  RunResult r = must_run(c);
  const auto totals = s->stop();
  EXPECT_EQ(r.total_requests, 20u);
  EXPECT_EQ(totals.requests, 20u);
}

TEST(AgainstServer, ServerErrorsAreCountedByStatus) {
  server::ServerOptions options;
  options.error_status = 503;
  options.error_percent = 50;
  auto s = start_server(options);
  ASSERT_TRUE(s);
  Config c = config_for(*s);
  c.max_requests = 400;
  c.concurrency = 4;
  c.keep_alive = true;
  RunResult r = must_run(c);
  const auto totals = s->stop();
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
  auto s = start_server(options);
  ASSERT_TRUE(s);
  Config c = config_for(*s);
  c.max_requests = 6;
  c.concurrency = 3;
  c.keep_alive = true;
  c.timeout = milliseconds(50);
  RunResult r = must_run(c);
  s->stop();
  EXPECT_EQ(r.total_requests, 6u);
  EXPECT_EQ(r.error_codes["ETIMEDOUT"], 6u);
}

TEST(AgainstServer, CountsTheInstanceHeader) {
  server::ServerOptions options;
  options.id = "a";
  auto s = start_server(options);
  ASSERT_TRUE(s);
  Config c = config_for(*s);
  c.max_requests = 50;
  c.concurrency = 2;
  c.keep_alive = true;
  c.count_headers = {"x-instance"};
  RunResult r = must_run(c);
  s->stop();
  EXPECT_EQ(r.header_counts["x-instance"]["a"], 50u);
}

}  // namespace
}  // namespace stampede::loadgen
