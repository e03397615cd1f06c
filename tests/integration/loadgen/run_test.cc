// run() against the scripted server: exact counts, connection reuse, response framings, error
// codes, timeouts, time limits and early stops. Everything on 127.0.0.1, bounded in count/time.
#include "loadgen/runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <set>
#include <sstream>

#include "core/clock.h"
#include "support/in_process.h"
#include "support/scripted_server.h"

namespace stampede::loadgen {
namespace {

using std::chrono::milliseconds;
using testing::answer_always;
using testing::answer_ok;
using testing::answer_ok_after;
using testing::error_count;
using testing::must_run;
using testing::ok_reply;
using testing::ScriptedReply;
using testing::ScriptedServer;

Config base(const ScriptedServer& server) {
  Config c;
  c.url = server.url();
  c.cores = 1;
  c.concurrency = 4;
  c.timeout = std::chrono::seconds(10);  // a bug must fail the test, not hang it
  return c;
}

// base() for `requests` requests over `concurrency` connections kept alive, on `cores` workers.
Config kept_alive(const ScriptedServer& server, std::uint64_t requests,
                  std::uint32_t concurrency = 4, std::uint32_t cores = 1) {
  Config c = base(server);
  c.max_requests = requests;
  c.concurrency = concurrency;
  c.cores = cores;
  c.keep_alive = true;
  return c;
}

// A run against a port that refuses every connection (RefusedPort), of `concurrency` clients.
Config refused_config(const testing::RefusedPort& refused, std::uint32_t concurrency) {
  Config c;
  c.url = "http://127.0.0.1:" + std::to_string(refused.port()) + "/";
  c.concurrency = concurrency;
  return c;
}

// Runs kept_alive(server, n, concurrency, 2 cores) and checks that exactly `n` requests reached
// `server` and were counted.
RunResult expect_exactly_n(const ScriptedServer& server, std::uint64_t n,
                           std::uint32_t concurrency) {
  RunResult r = must_run(kept_alive(server, n, concurrency, 2));
  EXPECT_EQ(server.requests(), n);
  EXPECT_EQ(r.total_requests, n);
  return r;
}

TEST(Run, ExactlyNRequestsWithKeepAlive) {
  ScriptedServer server(answer_ok());
  RunResult r = expect_exactly_n(server, 1000, 10);
  EXPECT_EQ(r.total_errors, 0u);
  EXPECT_EQ(r.status_counts[200], 1000u);
  EXPECT_EQ(r.latency.count(), 1000u);
  EXPECT_EQ(r.cores, 2u);
  EXPECT_EQ(server.connections(), 10u);
  EXPECT_EQ(r.connections_opened, 10u);
  EXPECT_GT(r.elapsed_ns, 0);
  EXPECT_FALSE(r.interrupted);
}

TEST(Run, ExactlyNRequestsWithMoreClientsThanRequests) {
  ScriptedServer server(answer_ok());
  const RunResult r = expect_exactly_n(server, 7, 50);
  EXPECT_EQ(r.clients, 50u);
  EXPECT_LE(server.connections(), 7u);
}

TEST(Run, WithoutKeepAliveEveryRequestHasItsConnection) {
  ScriptedServer server(answer_ok());
  Config c = kept_alive(server, 200, 4, 2);
  c.keep_alive = false;
  RunResult r = must_run(c);
  EXPECT_EQ(server.requests(), 200u);
  EXPECT_EQ(r.total_requests, 200u);
  EXPECT_EQ(r.total_errors, 0u);
  EXPECT_EQ(server.connections(), 200u);
  EXPECT_EQ(r.connections_opened, 200u);
  EXPECT_THAT(server.last_request(), ::testing::HasSubstr("\r\nConnection: close\r\n"));
}

// `requests` keep-alive requests (base()'s 4 clients), every one answered 200 with `reply`: all
// are counted as 200s without error, over `connections` sockets.
void expect_framing(const ScriptedReply& reply, std::uint64_t requests, std::uint64_t connections) {
  ScriptedServer server(answer_always(reply));
  Config c = kept_alive(server, requests);
  RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, requests);
  EXPECT_EQ(r.status_counts[200], requests);
  EXPECT_EQ(r.total_errors, 0u);
  EXPECT_EQ(server.connections(), connections);
}

TEST(Run, KeepAliveRequestedButTheServerCloses) {
  expect_framing({"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nOK", true}, 40,
                 40);
}

TEST(Run, ChunkedResponses) {
  expect_framing({"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n "
                  "world\r\n0\r\n\r\n"},
                 100, 4);
}

TEST(Run, CloseDelimitedResponses) {
  expect_framing({"HTTP/1.1 200 OK\r\n\r\nbody until the close", true}, 50, 50);
}

TEST(Run, InterimResponsesAreSkipped) {
  ScriptedServer server(
      answer_always({"HTTP/1.1 100 Continue\r\n\r\n"
                     "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n"
                     "HTTP/1.1 204 No Content\r\n\r\n"}));
  Config c = kept_alive(server, 60);
  RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 60u);
  EXPECT_EQ(r.status_counts[204], 60u);
  EXPECT_EQ(r.status_counts.count(100), 0u);
  EXPECT_EQ(r.status_counts.count(103), 0u);
  EXPECT_EQ(r.total_errors, 0u);
}

TEST(Run, ErrorStatusesAreCountedByCode) {
  ScriptedServer server([](std::uint64_t i, const std::string&) -> ScriptedReply {
    if (i % 4 == 0) return {"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n"};
    if (i % 4 == 1) return {"HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\nno!"};
    if (i % 4 == 2) return {"HTTP/1.1 301 Moved\r\nLocation: /x\r\nContent-Length: 0\r\n\r\n"};
    return {"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK"};
  });
  Config c = kept_alive(server, 400);
  RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 400u);
  EXPECT_EQ(r.total_errors, 200u);
  EXPECT_EQ(error_count(r, "500"), 100u);
  EXPECT_EQ(error_count(r, "404"), 100u);
  EXPECT_EQ(r.error_codes.size(), 2u);
  EXPECT_EQ(r.status_counts[301], 100u);
  EXPECT_EQ(r.status_counts[200], 100u);
}

TEST(Run, ACloseInTheMiddleOfAResponseIsAReset) {
  ScriptedServer server(answer_always({"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", true}));
  Config c = kept_alive(server, 12);
  RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 12u);
  EXPECT_EQ(r.total_errors, 12u);
  EXPECT_EQ(error_count(r, "ECONNRESET"), 12u);
  EXPECT_EQ(server.requests(), 12u);
}

TEST(Run, GarbageIsAProtocolError) {
  ScriptedServer server(answer_always({"this is not http\r\n\r\n", true}));
  Config c = base(server);
  c.max_requests = 8;
  RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 8u);
  EXPECT_EQ(error_count(r, "EPROTO"), 8u);
}

TEST(Run, RefusedTargetEndsOnTimeWithoutSpinning) {
  testing::RefusedPort refused;
  Config c = refused_config(refused, 10);
  c.max_duration = milliseconds(1000);
  const std::int64_t begin = mono_ns();
  RunResult r = must_run(c);
  const double wall = static_cast<double>(mono_ns() - begin) / 1e9;
  EXPECT_GE(wall, 0.99);
  EXPECT_LT(wall, 2.0);
  EXPECT_GT(r.total_requests, 0u);
  EXPECT_EQ(error_count(r, "ECONNREFUSED"), r.total_requests);
  EXPECT_EQ(r.total_errors, r.total_requests);
  // The backoff allows about 8 attempts per connection per second, not thousands.
  EXPECT_LT(r.total_requests, 200u);
  EXPECT_NEAR(r.elapsed_seconds(), 1.0, 0.3);
}

TEST(Run, RefusedTargetWithMaxRequestsReportsExactlyN) {
  testing::RefusedPort refused;
  Config c = refused_config(refused, 10);
  c.max_requests = 30;
  RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 30u);
  EXPECT_EQ(error_count(r, "ECONNREFUSED"), 30u);
  EXPECT_EQ(r.connections_opened, 0u);  // 30 refused attempts, not 30 connections
}

TEST(Run, SilentServerTimesOut) {
  ScriptedServer server(answer_always({"", false, milliseconds(0), true}));
  Config c = base(server);
  c.concurrency = 2;
  c.max_requests = 4;
  c.timeout = milliseconds(100);
  RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 4u);
  EXPECT_EQ(error_count(r, "ETIMEDOUT"), 4u);
  EXPECT_GE(r.latency.min(), 100'000'000);
  EXPECT_LT(r.latency.max(), 1'000'000'000);
}

TEST(Run, TimeLimitWaitsForRequestsInFlight) {
  ScriptedServer server(answer_ok_after(milliseconds(300)));
  Config c = base(server);
  c.concurrency = 2;
  c.keep_alive = true;
  c.max_duration = milliseconds(500);
  c.timeout = milliseconds(2000);
  RunResult r = must_run(c);
  // Requests sent before the deadline and answered after it are waited for and counted.
  EXPECT_EQ(r.total_requests, server.requests());
  EXPECT_EQ(r.total_requests, 4u);
  EXPECT_EQ(r.total_errors, 0u);
  EXPECT_GE(r.elapsed_seconds(), 0.59);
  EXPECT_LT(r.elapsed_seconds(), 1.5);
}

TEST(Run, TimeLimitAbandonsWhatNeverAnswers) {
  ScriptedServer server(answer_always({"", false, milliseconds(0), true}));
  Config c = base(server);
  c.timeout = {};
  c.concurrency = 3;
  c.max_duration = milliseconds(300);
  const std::int64_t begin = mono_ns();
  RunResult r = must_run(c);
  const double wall = static_cast<double>(mono_ns() - begin) / 1e9;
  EXPECT_EQ(r.total_requests, 0u);
  EXPECT_EQ(server.requests(), 3u);
  EXPECT_LT(wall, 0.3 + 1.0 + 0.5);  // the deadline plus the default drain limit
  EXPECT_NEAR(r.elapsed_seconds(), 0.3, 0.1);
}

TEST(Run, StopSignalEndsTheRunEarly) {
  StopSignal stop;
  ScriptedServer server([&stop](std::uint64_t i, const std::string& request) {
    if (i == 200) stop.request_stop();
    return ok_reply(request);
  });
  Config c = base(server);
  c.keep_alive = true;
  c.max_duration = std::chrono::seconds(30);
  RunHooks hooks;
  hooks.stop = &stop;
  const std::int64_t begin = mono_ns();
  RunResult r = must_run(c, hooks);
  EXPECT_LT(static_cast<double>(mono_ns() - begin) / 1e9, 5.0);
  EXPECT_TRUE(r.interrupted);
  EXPECT_GE(r.total_requests, 150u);
  EXPECT_LE(r.total_requests, server.requests());
}

TEST(Run, CountsResponsesByHeaderValue) {
  ScriptedServer server([](std::uint64_t i, const std::string&) -> ScriptedReply {
    return {std::string("HTTP/1.1 200 OK\r\nX-Instance: ") + (i % 3 == 0 ? "a" : "b") +
            "\r\nContent-Length: 0\r\n\r\n"};
  });
  Config c = kept_alive(server, 300);
  c.count_headers = {"x-instance", "x-absent"};
  RunResult r = must_run(c);
  EXPECT_EQ(r.header_counts["x-instance"]["a"], 100u);
  EXPECT_EQ(r.header_counts["x-instance"]["b"], 200u);
  EXPECT_TRUE(r.header_counts["x-absent"].empty());
}

TEST(Run, IndexParamGivesEveryRequestItsOwnIndex) {
  std::mutex mutex;
  std::set<std::string> targets;
  ScriptedServer server([&](std::uint64_t, const std::string& request) {
    std::lock_guard lock(mutex);
    targets.insert(request.substr(0, request.find("\r\n")));
    return ok_reply(request);
  });
  Config c = kept_alive(server, 100, 4, 2);
  c.url = server.url("/item/ID");
  c.index_param = "ID";
  RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 100u);
  std::lock_guard lock(mutex);
  EXPECT_EQ(targets.size(), 100u);
  for (int i = 1; i <= 100; ++i)  // two workers, and still exactly 1..100, as loadtest numbers
    EXPECT_EQ(targets.count("GET /item/" + std::to_string(i) + " HTTP/1.1"), 1u) << i;
}

TEST(Run, HeadResponsesHaveNoBody) {
  ScriptedServer server(answer_always({"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"}));
  Config c = kept_alive(server, 20);
  c.method = "HEAD";
  RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 20u);
  EXPECT_EQ(r.total_errors, 0u);
  EXPECT_EQ(server.connections(), 4u);
}

TEST(Run, PostsTheBody) {
  ScriptedServer server(answer_ok());
  Config c = base(server);
  c.method = "POST";
  c.body = "{\"k\":1}";
  c.content_type = "application/json";
  c.max_requests = 10;
  RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 10u);
  const std::string last = server.last_request();
  EXPECT_EQ(last.rfind("POST / HTTP/1.1\r\n", 0), 0u);
  EXPECT_THAT(last, ::testing::HasSubstr("\r\nContent-Type: application/json\r\n"));
  EXPECT_THAT(last, ::testing::EndsWith("\r\nContent-Length: 7\r\nConnection: close\r\n\r\n"
                                        "{\"k\":1}"));
}

// Runs `c` with a progress line every `interval` into `progress`.
RunResult run_with_progress(const Config& c, milliseconds interval, std::ostringstream& progress) {
  RunHooks hooks;
  hooks.progress = &progress;
  hooks.progress_interval = interval;
  return must_run(c, hooks);
}

TEST(Run, ProgressLinesLikeLoadtests) {
  ScriptedServer server(answer_ok());
  Config c = base(server);
  c.keep_alive = true;
  c.max_duration = milliseconds(450);
  std::ostringstream progress;
  const RunResult r = run_with_progress(c, milliseconds(100), progress);
  EXPECT_GT(r.total_requests, 0u);
  EXPECT_THAT(progress.str(),
              ::testing::MatchesRegex("(Requests: [0-9]+, requests per second: [0-9]+, "
                                      "mean latency: [0-9]+\\.[0-9]{3} ms\n){3,4}"));
}

TEST(Run, ProgressShowsPercentAndErrors) {
  testing::RefusedPort refused;
  Config c = refused_config(refused, 2);
  c.max_requests = 12;
  std::ostringstream progress;
  const RunResult r = run_with_progress(c, milliseconds(150), progress);
  EXPECT_EQ(r.total_requests, 12u);
  EXPECT_THAT(progress.str(), ::testing::ContainsRegex("Requests: [0-9]+ \\([0-9]+%\\)"));
  EXPECT_THAT(progress.str(), ::testing::ContainsRegex(
                                  "Errors: [0-9]+, accumulated errors: [0-9]+, 100.0% of total"));
}

TEST(Run, BadConfigIsAnError) {
  Config c;
  c.url = "gopher://127.0.0.1/";
  auto r = run(c);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, ::testing::HasSubstr("unsupported scheme"));
  c.url = "http://127.0.0.1/";
  c.concurrency = 0;
  EXPECT_FALSE(run(c).ok());
}

}  // namespace
}  // namespace stampede::loadgen
