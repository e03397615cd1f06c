// --log against the in-process test server: the log's lines add up to the report's counts (its
// JSON's totalRequests, totalErrors, statusCodes, errorCodes and localErrors) for runs with error
// statuses and with timeouts, including a -t run that ends with requests due and in flight; each
// line's times are in order.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "loadgen/runner.h"
#include "support/in_process.h"
#include "support/request_log_report.h"
#include "support/temp_dir.h"

namespace stampede::loadgen {
namespace {

using std::chrono::milliseconds;
using testing::expect_log_matches_report;
using testing::LogRow;
using testing::must_run;
using testing::read_csv_log;
using testing::read_ndjson_log;
using testing::start_server;
using testing::TempDir;

Config logged_config(const server::Server& s, const std::string& log) {
  Config c;
  c.url = "http://127.0.0.1:" + std::to_string(s.port()) + "/";
  c.timeout = std::chrono::seconds(10);
  c.log_file = log;
  return c;
}

// 30% of the answers are 500s, on two workers (each with its own buffer); every request opened a
// connection of its own (no -k), so each line has a connect time and its own connection.
TEST(RequestLog, LinesAddUpToTheReportWithErrorStatuses) {
  server::ServerOptions options;
  options.error_status = 500;
  options.error_percent = 30;
  auto s = start_server(options);
  ASSERT_TRUE(s);
  TempDir dir;
  Config c = logged_config(*s, dir.file("run.csv"));
  c.max_requests = 300;
  c.concurrency = 4;
  c.cores = 2;
  const RunResult r = must_run(c);
  s->stop();
  ASSERT_EQ(r.total_requests, 300u);
  EXPECT_GT(r.error_codes.at("500"), 0u);
  EXPECT_EQ(r.log_error, "");
  const std::vector<LogRow> lines = read_csv_log(c.log_file);
  expect_log_matches_report(lines, r);
  std::set<std::pair<int, std::uint64_t>> connections;
  std::set<int> workers;
  for (const LogRow& l : lines) {
    EXPECT_EQ(l.intended, -1) << "closed loop: no schedule";
    EXPECT_EQ(l.stream, 0u) << "HTTP/1.1: no stream";
    EXPECT_GE(l.connected, 0) << l.index;
    EXPECT_GT(l.bytes, 0u) << l.index;
    EXPECT_GE(l.index, 1u);
    EXPECT_LE(l.index, 300u);
    connections.insert({l.worker, l.connection});
    workers.insert(l.worker);
  }
  EXPECT_EQ(connections.size(), 300u) << "one connection per request without -k";
  EXPECT_EQ(workers, (std::set<int>{0, 1}));
}

// Every request times out (the server waits 300 ms, the timeout is 50 ms) under --rps, and the
// -t deadline comes with requests in flight: those the drain limit abandons are in neither the
// report nor the log, those that time out within it are in both.
TEST(RequestLog, LinesAddUpToTheReportWithTimeoutsAtTheDeadline) {
  server::ServerOptions options;
  options.delay = milliseconds(300);
  auto s = start_server(options);
  ASSERT_TRUE(s);
  TempDir dir;
  Config c = logged_config(*s, dir.file("run.ndjson"));
  c.rps = 100;
  c.max_duration = milliseconds(300);
  c.concurrency = 8;
  c.keep_alive = true;
  c.timeout = milliseconds(50);
  const RunResult r = must_run(c);
  s->stop();
  EXPECT_GT(r.total_requests, 10u);
  EXPECT_EQ(r.total_errors, r.total_requests);
  const std::vector<LogRow> lines = read_ndjson_log(c.log_file);
  expect_log_matches_report(lines, r);
  for (const LogRow& l : lines) {
    EXPECT_EQ(l.error, "ETIMEDOUT");
    EXPECT_GE(l.intended, 0) << "paced: its time in the schedule";
    EXPECT_LE(l.intended, l.start);
    EXPECT_LT(l.intended, 300'000);
    EXPECT_GE(l.end - l.start, 45'000);  // the timeout, from the request's start
  }
}

}  // namespace
}  // namespace stampede::loadgen
