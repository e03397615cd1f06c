// --log against the in-process test server: the log's lines add up to the report's counts (its
// JSON's totalRequests, totalErrors, statusCodes, errorCodes and localErrors) for runs with error
// statuses and with timeouts, including a -t run that ends with requests due and in flight; each
// line's times are in order.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "loadgen/report/json.h"
#include "loadgen/runner.h"
#include "support/in_process.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace stampede::loadgen {
namespace {

using std::chrono::milliseconds;
using testing::must_run;
using testing::read_file;
using testing::start_server;
using testing::TempDir;

// One line of the log, as read back; a time that does not apply is -1.
struct ReadLine {
  std::uint64_t index = 0;
  int worker = 0;
  std::uint64_t connection = 0;
  std::int64_t intended = -1, start = -1, connected = -1, sent = -1, first_byte = -1, end = -1;
  std::string status, error;
  std::uint64_t bytes = 0;
};

std::int64_t csv_time(const std::string& field) {
  return field.empty() ? -1 : std::stoll(field);
}

std::vector<ReadLine> read_csv_log(const std::string& path) {
  std::istringstream in(read_file(path));
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text,
            "index,worker,connection,intended_us,start_us,connected_us,sent_us,first_byte_us,"
            "end_us,status,error,bytes");
  std::vector<ReadLine> lines;
  while (std::getline(in, text)) {
    std::vector<std::string> f;
    std::istringstream fields(text);
    for (std::string field; std::getline(fields, field, ',');)
      f.push_back(field);
    if (text.back() == ',') f.emplace_back();
    EXPECT_EQ(f.size(), 12u) << text;
    if (f.size() != 12) continue;
    lines.push_back({std::stoull(f[0]), std::stoi(f[1]), std::stoull(f[2]), csv_time(f[3]),
                     csv_time(f[4]), csv_time(f[5]), csv_time(f[6]), csv_time(f[7]), csv_time(f[8]),
                     f[9], f[10], std::stoull(f[11])});
  }
  return lines;
}

std::vector<ReadLine> read_ndjson_log(const std::string& path) {
  std::istringstream in(read_file(path));
  std::vector<ReadLine> lines;
  const auto time = [](const nlohmann::json& v) {
    return v.is_null() ? -1 : v.get<std::int64_t>();
  };
  for (std::string text; std::getline(in, text);) {
    const auto j = nlohmann::json::parse(text);
    EXPECT_EQ(j.size(), 12u) << text;
    lines.push_back({j["index"], j["worker"], j["connection"], time(j["intended_us"]),
                     time(j["start_us"]), time(j["connected_us"]), time(j["sent_us"]),
                     time(j["first_byte_us"]), time(j["end_us"]),
                     j["status"].is_null() ? "" : std::to_string(j["status"].get<int>()),
                     j["error"].is_null() ? "" : j["error"].get<std::string>(), j["bytes"]});
  }
  return lines;
}

// The lines by status and by error are the report's counts; every index is logged once; each
// line's times are in order.
void expect_log_matches_report(const std::vector<ReadLine>& lines, const RunResult& r) {
  const auto report = to_json(r);
  std::map<std::string, std::uint64_t> statuses, errors;
  std::set<std::uint64_t> indexes;
  std::uint64_t with_error = 0, bytes = 0;
  for (const ReadLine& l : lines) {
    if (!l.status.empty()) ++statuses[l.status];
    if (!l.error.empty()) {
      ++errors[l.error];
      ++with_error;
    }
    bytes += l.bytes;
    EXPECT_TRUE(indexes.insert(l.index).second) << "index " << l.index << " logged twice";
    EXPECT_GE(l.start, 0);
    EXPECT_GE(l.end, l.start);
    for (std::int64_t t : {l.connected, l.sent, l.first_byte}) {
      if (t < 0) continue;
      EXPECT_GE(t, l.start) << l.index;
      EXPECT_LE(t, l.end) << l.index;
    }
    if (l.connected >= 0 && l.sent >= 0) EXPECT_LE(l.connected, l.sent);
    if (l.sent >= 0 && l.first_byte >= 0) EXPECT_LE(l.sent, l.first_byte);
    if (!l.status.empty()) EXPECT_GE(l.first_byte, 0) << l.index;
  }
  EXPECT_EQ(lines.size(), report["totalRequests"].get<std::uint64_t>());
  EXPECT_EQ(with_error, report["totalErrors"].get<std::uint64_t>());
  std::map<std::string, std::uint64_t> report_statuses, report_errors;
  for (const auto& [code, n] : report["statusCodes"].items())
    report_statuses[code] = n;
  for (const char* key : {"errorCodes", "localErrors"}) {
    for (const auto& [code, n] : report[key].items())
      report_errors[code] += n.get<std::uint64_t>();
  }
  EXPECT_EQ(statuses, report_statuses);
  EXPECT_EQ(errors, report_errors);
  EXPECT_LE(bytes, r.bytes_read);
}

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
  const std::vector<ReadLine> lines = read_csv_log(c.log_file);
  expect_log_matches_report(lines, r);
  std::set<std::pair<int, std::uint64_t>> connections;
  std::set<int> workers;
  for (const ReadLine& l : lines) {
    EXPECT_EQ(l.intended, -1) << "closed loop: no schedule";
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
  const std::vector<ReadLine> lines = read_ndjson_log(c.log_file);
  expect_log_matches_report(lines, r);
  for (const ReadLine& l : lines) {
    EXPECT_EQ(l.error, "ETIMEDOUT");
    EXPECT_GE(l.intended, 0) << "paced: its time in the schedule";
    EXPECT_LE(l.intended, l.start);
    EXPECT_LT(l.intended, 300'000);
    EXPECT_GE(l.end - l.start, 45'000);  // the timeout, from the request's start
  }
}

}  // namespace
}  // namespace stampede::loadgen
