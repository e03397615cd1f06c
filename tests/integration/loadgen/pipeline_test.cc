// --pipeline N: exact counts at any depth, -c and --cores, whole batches in the closed loop, each
// request's own latency, the --rps schedule carried by pipelined connections, and a server that
// closes with requests pending (each unanswered request counted once, none lost). Everything on
// 127.0.0.1, bounded.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "loadgen/connection.h"
#include "loadgen/runner.h"
#include "server/server.h"
#include "support/in_process.h"
#include "support/scripted_server.h"

namespace stampede::loadgen {
namespace {

using std::chrono::milliseconds;
using testing::error_count;
using testing::must_run;
using testing::ok_reply;
using testing::ScriptedReply;
using testing::ScriptedServer;
using testing::start_server;

Config pipelined(std::uint16_t port, std::uint32_t depth) {
  Config c;
  c.url = "http://127.0.0.1:" + std::to_string(port) + "/";
  c.cores = 1;
  c.concurrency = 1;
  c.keep_alive = true;
  c.pipeline = depth;
  c.timeout = std::chrono::seconds(10);  // a bug must fail the test, not hang it
  return c;
}

// -n is exact whatever the depth, -c and --cores: the server sees exactly N and every one of them
// is answered. 16 deep over 3 connections on 2 workers, then a depth larger than N per worker.
TEST(Pipeline, ExactlyNAtAnyDepthConnectionsAndCores) {
  auto s = start_server();
  ASSERT_TRUE(s);
  Config c = pipelined(s->port(), 16);
  c.max_requests = 1001;
  c.concurrency = 3;
  c.cores = 2;
  RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 1001u);
  EXPECT_EQ(r.total_errors, 0u);
  EXPECT_EQ(r.status_counts[200], 1001u);
  EXPECT_EQ(r.latency.count(), 1001u);
  EXPECT_EQ(r.connections_opened, 3u);

  c.max_requests = 7;
  c.concurrency = 2;
  c.pipeline = 256;
  r = must_run(c);
  EXPECT_EQ(r.total_requests, 7u);
  EXPECT_EQ(r.status_counts[200], 7u);
  const auto totals = s->stop();
  EXPECT_EQ(totals.requests, 1008u);
}

// Closed loop, a connection writes N requests together and the next N only once every one is
// answered (as wrk's pipeline script does). The server records, as each request arrives, how many
// requests before it are still unanswered (one connection: requests taken minus replies
// written). It answers the last of each 4 after 20 ms and the others at once, so a connection
// that refilled after every read would send the next request while that one is pending. -n 10 at
// depth 4: batches of 4, 4 and 2, never more than 4 in flight.
TEST(Pipeline, ClosedLoopWritesWholeBatches) {
  struct Seen {
    std::atomic<const ScriptedServer*> server{nullptr};
    std::mutex mutex;
    std::vector<std::uint64_t> unanswered;  // per request, in arrival order
  };
  auto seen = std::make_shared<Seen>();
  ScriptedServer server([seen](std::uint64_t index, const std::string& request) {
    const std::uint64_t written = seen->server.load()->replies_settled();
    {
      std::lock_guard lock(seen->mutex);
      seen->unanswered.push_back(index - written);
    }
    ScriptedReply reply = ok_reply(request);
    if (index % 4 == 3) reply.delay = milliseconds(20);
    return reply;
  });
  seen->server = &server;  // before any request: the generator has not started
  Config c = pipelined(server.port(), 4);
  c.max_requests = 10;
  RunResult r = must_run(c);
  EXPECT_EQ(r.status_counts[200], 10u);
  EXPECT_EQ(server.requests(), 10u);
  EXPECT_EQ(server.connections(), 1u);
  std::lock_guard lock(seen->mutex);
  EXPECT_EQ(seen->unanswered, (std::vector<std::uint64_t>{0, 1, 2, 3, 0, 1, 2, 3, 0, 1}));
}

// HEAD responses have no body whatever their Content-Length: the parser is told so for every
// response of the batch, and the last one in a read completes without more bytes coming.
TEST(Pipeline, HeadResponsesEachComplete) {
  auto s = start_server();
  ASSERT_TRUE(s);
  Config c = pipelined(s->port(), 8);
  c.method = "HEAD";
  c.max_requests = 1000;
  c.concurrency = 2;
  c.timeout = std::chrono::seconds(2);  // a response left waiting fails in 2 s, not 10
  RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 1000u);
  EXPECT_EQ(r.status_counts[200], 1000u);
  EXPECT_EQ(r.total_errors, 0u);
  EXPECT_EQ(s->stop().requests, 1000u);
}

// Each request's latency counts from its own write, not per batch (wrk's pipeline script
// records one latency per batch, its last response's): of 4 requests written together, the
// first is answered at once and the others 300 ms later.
TEST(Pipeline, EachRequestHasItsOwnLatency) {
  ScriptedServer server(testing::answer_ok_after(milliseconds(300), /*from=*/1));
  Config c = pipelined(server.port(), 4);
  c.max_requests = 4;
  RunResult r = must_run(c);
  EXPECT_EQ(server.connections(), 1u);
  EXPECT_EQ(r.status_counts[200], 4u);
  EXPECT_EQ(r.latency.count(), 4u);
  EXPECT_LT(r.latency.min(), 150'000'000);  // the first: no wait for the batch's last
  EXPECT_GE(r.latency.max(), 300'000'000);
}

// --rps on one connection to a server that answers each request 100 ms after it came: one
// request at a time carries at most 10 a second; pipelined, the connection takes every permit
// that is due (up to 16 in flight) and keeps the schedule of 100 a second.
TEST(Pipeline, PipelinedConnectionsCarryTheSchedule) {
  ScriptedServer server(testing::answer_ok_after(milliseconds(100)));
  Config c = pipelined(server.port(), 16);
  c.rps = 100;
  c.max_duration = milliseconds(1000);
  RunResult r = must_run(c);
  EXPECT_EQ(server.connections(), 1u);
  EXPECT_EQ(r.total_errors, 0u);
  EXPECT_GE(r.total_requests, 90u);  // 100 are due; at depth 1 about 10 would go
  EXPECT_LE(r.total_requests, 100u);
  EXPECT_EQ(server.requests(), r.total_requests);
}

// The server answers 3 requests of each connection, then closes it with the others pending
// (read or still on their way). Every request is counted exactly once: the answered ones as
// 200, the oldest unanswered as ECONNRESET, the rest as PIPELINE_UNANSWERED; the connection
// reconnects and the run goes on to exactly -n.
TEST(Pipeline, ServerClosingWithRequestsPendingLosesNone) {
  ScriptedServer server([](std::uint64_t index, const std::string& request) {
    ScriptedReply reply = ok_reply(request);
    if (index % 3 == 2) {  // each connection's third request: answer it and close
      reply.close_after = true;
      reply.bytes = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK";
    }
    return reply;
  });
  Config c = pipelined(server.port(), 8);
  c.max_requests = 200;
  RunResult r = must_run(c);
  ASSERT_TRUE(server.wait_settled(r.status_counts[200], milliseconds(5000)));
  EXPECT_EQ(r.total_requests, 200u);
  EXPECT_EQ(r.total_requests, r.status_counts[200] + r.total_errors);
  EXPECT_EQ(r.total_errors,
            error_count(r, "ECONNRESET") + error_count(r, std::string(kUnanswered)));
  // Every answer the server wrote was counted, and nothing else was a 200.
  EXPECT_EQ(r.status_counts[200], server.replies_settled());
  EXPECT_LE(server.requests(), r.total_requests);
  EXPECT_GE(server.requests(), r.status_counts[200]);
  EXPECT_GT(r.total_errors, 0u);
  EXPECT_GT(server.connections(), 10u);  // it reconnected and went on
}

// A response that says "Connection: close" with requests behind it: they are unanswered (no
// failure hit them), counted as PIPELINE_UNANSWERED; the run reaches -n.
TEST(Pipeline, ConnectionCloseResponseLeavesTheRestUnanswered) {
  ScriptedServer server([](std::uint64_t index, const std::string& request) {
    ScriptedReply reply = ok_reply(request);
    if (index % 4 == 0) {
      reply.bytes = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nOK";
      reply.close_after = true;
    }
    return reply;
  });
  Config c = pipelined(server.port(), 4);
  c.max_requests = 40;
  RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 40u);
  EXPECT_EQ(r.total_requests, r.status_counts[200] + error_count(r, std::string(kUnanswered)));
  EXPECT_EQ(error_count(r, "ECONNRESET"), 0u);
}

}  // namespace
}  // namespace stampede::loadgen
