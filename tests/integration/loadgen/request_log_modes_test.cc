// --log with --pipeline, --http2 and ws:// against in-process servers: one line per request (a
// pipelined request, a stream, a message), adding up to the JSON report's counts; a server that
// closes mid-pipeline leaves one line per unanswered request under its error. (HTTP/2 streams
// reset by the server and GOAWAY: tests/unit/loadgen_conn/h2_client_stream_test.cc.)
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "loadgen/connection.h"
#include "loadgen/runner.h"
#include "support/in_process.h"
#include "support/request_log_report.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"

namespace stampede::loadgen {
namespace {

using testing::expect_log_matches_report;
using testing::LogRow;
using testing::must_run;
using testing::ok_reply;
using testing::read_csv_log;
using testing::read_ndjson_log;
using testing::ScriptedReply;
using testing::ScriptedServer;
using testing::start_server;
using testing::TempDir;

// A run of `requests` over `connections` on `workers` threads.
Config shaped(std::uint64_t requests, std::uint32_t connections, std::uint32_t workers) {
  Config c;
  c.max_requests = requests;
  c.concurrency = connections;
  c.cores = workers;
  return c;
}

// `c` aimed at the server on `port`, logging to `log`.
Config logged(Config c, std::uint16_t port, const std::string& log, const char* scheme = "http") {
  c.url = std::string(scheme) + "://127.0.0.1:" + std::to_string(port) + "/";
  c.timeout = std::chrono::seconds(10);  // a bug fails the test, it does not hang it
  c.log_file = log;
  return c;
}

// A run's --log read back: the rows, already checked to add up to the report's counts.
struct LoggedRun {
  RunResult result;
  std::vector<LogRow> rows;
};

// Runs `c` against an in-process server started with `options`, logging to a file named
// `log_name` (".csv" or ".ndjson" chooses the reader) over `scheme`; nullopt (a failure added)
// when the server does not start or the run did not make its c.max_requests requests. Every
// line must have been written (no log_error).
std::optional<LoggedRun> run_logged(Config c, const std::string& log_name,
                                    const char* scheme = "http",
                                    server::ServerOptions options = {}) {
  auto s = start_server(std::move(options));
  if (!s) {
    ADD_FAILURE() << "the test server did not start";
    return std::nullopt;
  }
  TempDir dir;
  c = logged(std::move(c), s->port(), dir.file(log_name), scheme);
  LoggedRun run{must_run(c), {}};
  s->stop();
  run.rows = log_name.ends_with(".csv") ? read_csv_log(c.log_file) : read_ndjson_log(c.log_file);
  expect_log_matches_report(run.rows, run.result);
  EXPECT_EQ(run.result.log_error, "");
  EXPECT_EQ(run.result.total_requests, c.max_requests);
  if (run.result.total_requests != c.max_requests) return std::nullopt;
  return run;
}

// Each connection opened has lines of its own, and the connect time is only on the line of the
// request that opened it.
void expect_connect_once_per_connection(const LoggedRun& run) {
  std::set<std::pair<int, std::uint64_t>> connections;
  std::uint64_t with_connect = 0;
  for (const LogRow& l : run.rows) {
    connections.insert({l.worker, l.connection});
    if (l.connected >= 0) ++with_connect;
  }
  EXPECT_EQ(connections.size(), run.result.connections_opened);
  EXPECT_EQ(with_connect, run.result.connections_opened);
}

// 16 deep over 3 connections on 2 workers: a line per request, not per batch, each with its own
// write and first byte; the connect time only on the request that opened its connection.
TEST(RequestLogModes, PipelinedRequestsHaveALineEach) {
  Config c = shaped(600, 3, 2);
  c.keep_alive = true;
  c.pipeline = 16;
  const std::optional<LoggedRun> run = run_logged(c, "run.csv");
  ASSERT_TRUE(run);  // 600 requests
  for (const LogRow& l : run->rows) {
    EXPECT_EQ(l.status, "200");
    EXPECT_GE(l.sent, 0) << l.index;
    EXPECT_GE(l.first_byte, l.sent) << l.index;
    EXPECT_GT(l.bytes, 0u) << l.index;
    EXPECT_EQ(l.stream, 0u);
  }
  expect_connect_once_per_connection(*run);
}

// The server answers 3 requests of each connection, then closes it with the others pending: the
// oldest unanswered is ECONNRESET, those behind it PIPELINE_UNANSWERED, one line each, none with
// a status; the answered ones are exactly those the server wrote.
TEST(RequestLogModes, AServerClosingMidPipelineLogsEachUnansweredRequest) {
  ScriptedServer server([](std::uint64_t index, const std::string& request) {
    ScriptedReply reply = ok_reply(request);
    if (index % 3 == 2) {
      reply.close_after = true;
      reply.bytes = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK";
    }
    return reply;
  });
  TempDir dir;
  Config c = logged(shaped(200, 1, 1), server.port(), dir.file("run.ndjson"));
  c.keep_alive = true;
  c.pipeline = 8;
  const RunResult r = must_run(c);
  ASSERT_TRUE(server.wait_settled(r.status_counts.at(200), std::chrono::milliseconds(5000)));
  ASSERT_EQ(r.total_requests, 200u);
  const std::vector<LogRow> rows = read_ndjson_log(c.log_file);
  expect_log_matches_report(rows, r);
  const testing::LogTally t = testing::tally_log(rows);
  EXPECT_GT(t.errors.count(std::string(kUnanswered)), 0u);
  EXPECT_EQ(t.statuses.at("200"), server.replies_settled());
  for (const LogRow& l : rows) {
    if (l.error.empty()) continue;
    EXPECT_EQ(l.status, "") << l.index;
    EXPECT_TRUE(l.error == "ECONNRESET" || l.error == kUnanswered) << l.error;
  }
}

// --streams 10 over 2 connections: one line per stream, each (worker, connection, stream) once,
// stream ids odd; the connect time only on each connection's first stream.
TEST(RequestLogModes, Http2StreamsHaveALineEachWithTheirStreamId) {
  Config c = shaped(400, 2, 1);
  c.http2 = true;
  c.streams = 10;
  const std::optional<LoggedRun> run = run_logged(c, "run.csv");
  ASSERT_TRUE(run);  // 400 requests
  std::set<std::tuple<int, std::uint64_t, std::uint32_t>> streams;
  for (const LogRow& l : run->rows) {
    EXPECT_EQ(l.status, "200");
    EXPECT_EQ(l.stream % 2, 1u) << l.index;
    EXPECT_GT(l.bytes, 9u) << l.index;  // at least a HEADERS frame
    EXPECT_TRUE(streams.insert({l.worker, l.connection, l.stream}).second) << l.stream;
  }
  expect_connect_once_per_connection(*run);
}

// One line per message; 10% of them are answered by a close (1011), each its own line named as
// the report names it, no status on any line (a reply is not an HTTP response).
TEST(RequestLogModes, WebSocketMessagesHaveALineEach) {
  server::ServerOptions options;
  options.error_percent = 10;
  Config c = shaped(100, 1, 1);
  const std::optional<LoggedRun> run = run_logged(c, "run.ndjson", "ws", options);
  ASSERT_TRUE(run);  // 100 requests
  std::uint64_t closed = 0, with_connect = 0;
  for (const LogRow& l : run->rows) {
    EXPECT_EQ(l.status, "");
    EXPECT_GE(l.sent, 0) << l.index;
    if (l.error == "close 1011") ++closed;
    if (l.connected >= 0) ++with_connect;
  }
  EXPECT_EQ(closed, 10u);
  EXPECT_EQ(with_connect, run->result.connections_opened);
}

}  // namespace
}  // namespace stampede::loadgen
