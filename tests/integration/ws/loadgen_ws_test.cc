// The generator's ws:// runs against the in-process test server (exact counts), a refused
// upgrade, closes by the server and a server that breaks the protocol.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <memory>
#include <sstream>

#include "loadgen/report/json.h"
#include "loadgen/report/text.h"
#include "loadgen/runner.h"
#include "loadgen/ws_run.h"
#include "net/fd.h"
#include "server/server.h"
#include "support/accept_loop.h"
#include "support/in_process.h"
#include "support/loopback.h"
#include "support/scripted_server.h"
#include "support/server_totals.h"
#include "support/ws_frames.h"
#include "ws/handshake.h"

namespace stampede::loadgen {
namespace {

using testing::must_run;
using testing::start_server;
using testing::start_server_with;
using testing::totals_are;

Config ws_config(std::uint16_t port, std::string_view target = "/") {
  Config c;
  c.url = "ws://127.0.0.1:" + std::to_string(port) + std::string(target);
  c.cores = 1;
  c.timeout = std::chrono::seconds(5);
  return c;
}

// `messages` messages over `concurrency` connections to `target` on 127.0.0.1:`port`.
Config ws_config(std::uint16_t port, std::uint64_t messages, std::uint32_t concurrency,
                 std::string_view target = "/") {
  Config c = ws_config(port, target);
  c.max_requests = messages;
  c.concurrency = concurrency;
  return c;
}

TEST(LoadgenWs, ExactMessageCounts) {
  auto s = start_server();
  ASSERT_TRUE(s);
  Config c = ws_config(s->port(), 500, 10);
  c.cores = 2;
  const RunResult r = must_run(c);
  const auto totals = s->stop();
  EXPECT_TRUE(r.websocket);
  EXPECT_EQ(r.total_requests, 500u);
  EXPECT_EQ(r.total_errors, 0u) << r.error_codes.size();
  EXPECT_EQ(r.ws.messages, 500u);
  EXPECT_EQ(r.latency.count(), 500u);
  EXPECT_EQ(r.connections_opened, 10u);
  EXPECT_TRUE(totals_are(totals, {.requests = 500, .bad_requests = 0, .connections = 10}));
}

TEST(LoadgenWs, TimeLimitedRunEndsCleanly) {
  auto s = start_server();
  ASSERT_TRUE(s);
  Config c = ws_config(s->port());
  c.max_duration = std::chrono::milliseconds(300);
  c.concurrency = 4;
  c.body = "a longer message, é included";
  const RunResult r = must_run(c);
  const auto totals = s->stop();
  EXPECT_GT(r.total_requests, 0u);
  EXPECT_EQ(r.total_errors, 0u);
  EXPECT_EQ(totals.requests, r.total_requests);
  EXPECT_EQ(r.connections_opened, 4u);
}

// A refused TCP connect is an error, not a connection: the report's "Connections opened"
// counts the connections that were established.
TEST(LoadgenWs, RefusedConnectsAreErrorsNotConnections) {
  testing::RefusedPort refused;
  Config c = ws_config(refused.port(), 3, 1);
  const RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 3u);
  EXPECT_EQ(r.total_errors, 3u);
  EXPECT_EQ(r.error_codes.at("ECONNREFUSED"), 3u);
  EXPECT_EQ(r.connections_opened, 0u);
  std::ostringstream text;
  write_text_report(r, text);
  EXPECT_NE(text.str().find("Connections opened:  0\n"), std::string::npos) << text.str();
}

TEST(LoadgenWs, RefusedHandshakesAreCountedByStatus) {
  auto s = start_server();
  ASSERT_TRUE(s);
  Config c = ws_config(s->port(), 4, 1, "/?status=503");
  const RunResult r = must_run(c);
  s->stop();
  EXPECT_EQ(r.total_requests, 4u);
  EXPECT_EQ(r.total_errors, 4u);
  EXPECT_EQ(r.ws.refused.at(503), 4u);
  EXPECT_EQ(r.error_codes.at("handshake 503"), 4u);
  std::ostringstream text;
  write_text_report(r, text);
  EXPECT_NE(text.str().find("Handshakes refused:  4 x 503"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("handshake 503:   4 errors"), std::string::npos) << text.str();
  const auto j = to_json(r);
  EXPECT_EQ(j["websocket"]["handshakesRefused"]["503"], 4);
  EXPECT_EQ(j["errorCodes"]["handshake 503"], 4);
}

TEST(LoadgenWs, ClosesByTheServerAreCountedByCode) {
  auto s = start_server_with([](server::ServerOptions& o) { o.error_percent = 10; });
  ASSERT_TRUE(s);
  Config c = ws_config(s->port(), 100, 1);
  const RunResult r = must_run(c);
  const auto totals = s->stop();
  EXPECT_EQ(r.total_requests, 100u);
  EXPECT_EQ(r.total_errors, 10u);
  EXPECT_EQ(r.ws.messages, 90u);
  EXPECT_EQ(r.ws.closed.at(1011), 10u);
  EXPECT_EQ(r.error_codes.at("close 1011"), 10u);
  EXPECT_EQ(r.connections_opened, 10u);  // one more after each close but the last
  EXPECT_TRUE(totals_are(totals, {.requests = 100, .errors = 10}));
  const auto j = to_json(r);
  EXPECT_EQ(j["websocket"]["closedByPeer"]["1011"], 10);
  EXPECT_EQ(j["websocket"]["messages"], 90);
}

// A server that completes the handshake, then sends a masked frame (servers must not mask).
class MaskingServer {
 public:
  std::uint16_t port() const { return loop_.port(); }

 private:
  static void serve(int fd) {
    timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    std::string request;
    char buffer[4096];
    while (request.find("\r\n\r\n") == std::string::npos) {
      const ssize_t n = testing::recv_some(fd, buffer, sizeof buffer);
      if (n <= 0) return;
      request.append(buffer, static_cast<std::size_t>(n));
    }
    const std::size_t at = request.find("Sec-WebSocket-Key: ") + 19;
    const std::string key = request.substr(at, request.find("\r\n", at) - at);
    std::string answer;
    ws::append_accept(answer, key);
    answer += testing::ws_frame(0x1, "masked", true);
    testing::send_all(fd, answer);
    while (testing::recv_some(fd, buffer, sizeof buffer) > 0) {
    }
  }

  testing::AcceptLoop loop_{serve, testing::AcceptLoop::Threads::One, 4};
};

TEST(LoadgenWs, ProtocolErrorsAreCountedByTheCodeWeClosedWith) {
  MaskingServer server;
  ASSERT_NE(server.port(), 0);
  Config c = ws_config(server.port(), 1, 1);
  const RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 1u);
  EXPECT_EQ(r.total_errors, 1u);
  EXPECT_EQ(r.ws.protocol.at(1002), 1u);
  EXPECT_EQ(r.error_codes.at("protocol 1002"), 1u);
}

TEST(LoadgenWs, RateIsRefusedForWebSockets) {
  Config c = ws_config(9);
  c.rps = 100;
  auto refused = prepare(c);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("--rps"), std::string::npos);
  c.rps = 0;
  EXPECT_TRUE(prepare(c).ok());
  c.rps = 100;
  c.url = "http://127.0.0.1:9/";
  EXPECT_TRUE(prepare(c).ok());
}

}  // namespace
}  // namespace stampede::loadgen
