// The generator against responses the strict parser refuses: each is counted as a protocol
// error (EPROTO) as soon as the bad bytes arrive, never as a good response and never as a
// timeout. Everything on 127.0.0.1, bounded in count and time.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "loadgen/runner.h"
#include "support/in_process.h"
#include "support/scripted_server.h"

namespace stampede::loadgen {
namespace {

using testing::error_count;
using testing::must_run;
using testing::ScriptedReply;
using testing::ScriptedServer;
using Clock = std::chrono::steady_clock;

// The timeout a bad response must not wait for; well above what eight requests on loopback
// take, so a host stall cannot make an EPROTO look like a timeout.
constexpr std::chrono::seconds kTimeout{4};

struct Outcome {
  RunResult result;
  Clock::duration took;
};

// Eight keep-alive requests, each answered with `bytes` on a connection the server keeps open.
Outcome run_against(const std::string& bytes) {
  ScriptedServer server([bytes](std::uint64_t, const std::string&) {
    ScriptedReply reply;
    reply.bytes = bytes;
    return reply;
  });
  Config c;
  c.url = server.url();
  c.cores = 1;
  c.concurrency = 2;
  c.keep_alive = true;
  c.max_requests = 8;
  c.timeout = kTimeout;
  const Clock::time_point start = Clock::now();
  RunResult r = must_run(c);
  return {std::move(r), Clock::now() - start};
}

void expect_protocol_errors_at_once(const std::string& bytes) {
  const Outcome o = run_against(bytes);
  EXPECT_EQ(o.result.total_requests, 8u);
  EXPECT_EQ(error_count(o.result, "EPROTO"), 8u);
  EXPECT_EQ(error_count(o.result, "ETIMEDOUT"), 0u);
  EXPECT_TRUE(o.result.status_counts.empty());
  EXPECT_LT(o.took, kTimeout / 2);
}

TEST(GeneratorFraming, BareCrInTheStatusLine) {
  expect_protocol_errors_at_once("HTTP/1.1 200 OK\rX-A: 1\r\nContent-Length: 2\r\n\r\nhi");
}

TEST(GeneratorFraming, BareCrInAHeaderLine) {
  expect_protocol_errors_at_once("HTTP/1.1 200 OK\r\nX-A: 1\rContent-Length: 2\r\n\r\nhi");
}

TEST(GeneratorFraming, EndlessHeadIsCutAtItsLimit) {
  std::string head = "HTTP/1.1 200 OK\r\n";
  while (head.size() < 80 * 1024)
    head += "X-Filler: " + std::string(100, 'f') + "\r\n";
  expect_protocol_errors_at_once(head);  // no blank line: the head never ends
}

TEST(GeneratorFraming, StatusWithALeadingZero) {
  expect_protocol_errors_at_once("HTTP/1.1 099 Odd\r\nContent-Length: 0\r\n\r\n");
}

TEST(GeneratorFraming, ChunkDataWithoutItsCrlf) {
  expect_protocol_errors_at_once(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n");
}

}  // namespace
}  // namespace stampede::loadgen
