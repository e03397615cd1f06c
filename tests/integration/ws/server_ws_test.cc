// The test server's WebSocket side over raw bytes: echo, counting, delays, simulated errors,
// refused handshakes, bad frames (each closed with its code) and the server staying up.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>
#include <utility>

#include "raw_ws.h"
#include "server/server.h"
#include "support/in_process.h"
#include "support/server_totals.h"
#include "support/with_server.h"
#include "support/ws_frames.h"

namespace stampede::testing {
namespace {

using Clock = std::chrono::steady_clock;

bool switched(const std::string& head) {
  return head.rfind("HTTP/1.1 101 Switching Protocols\r\n", 0) == 0 &&
         head.find("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n") != std::string::npos;
}

using ServerWs = WithServer;

TEST_F(ServerWs, EchoesTextAndBinaryAndCountsMessages) {
  RawWs client(server_->port());
  ASSERT_TRUE(switched(client.upgrade("/any/path")));
  for (int i = 0; i < 20; ++i) {
    const std::string text = "message " + std::to_string(i);
    auto echo = client.exchange(0x1, text);
    ASSERT_TRUE(echo) << i;
    EXPECT_EQ(echo->opcode, 0x1);
    EXPECT_FALSE(echo->masked);
    EXPECT_EQ(echo->payload, text);
  }
  const std::string binary("\x00\xff\x01", 3);
  auto echo = client.exchange(0x2, binary);
  ASSERT_TRUE(echo);
  EXPECT_EQ(echo->opcode, 0x2);
  EXPECT_EQ(echo->payload, binary);
  const std::string big(100000, 'z');
  echo = client.exchange(0x1, big);
  ASSERT_TRUE(echo);
  EXPECT_EQ(echo->payload, big);
  EXPECT_EQ(server_->served(), 22u);

  auto close = client.exchange(0x8,
                               "\x03\xe8"  // close 1000
                               "bye");
  ASSERT_TRUE(close);
  EXPECT_EQ(close->close_code(), 1000);
  EXPECT_TRUE(client.closed_by_peer());
  EXPECT_TRUE(totals_are(server_->stop(), {.requests = 22, .connections = 1}));
}

TEST_F(ServerWs, FramesSentWithTheUpgradeAreEchoed) {
  RawWs client(server_->port());
  ASSERT_TRUE(client.send(RawWs::upgrade_request() + ws_frame(0x1, "early", true) +
                          ws_frame(0x9, "ping", true)));
  ASSERT_TRUE(switched(client.read_until("\r\n\r\n")));
  // Control frames may overtake data frames (wslay sends queued ones first).
  auto first = client.read_frame(), second = client.read_frame();
  ASSERT_TRUE(first && second);
  if (first->opcode == 0xA) std::swap(first, second);
  EXPECT_EQ(first->opcode, 0x1);
  EXPECT_EQ(first->payload, "early");
  EXPECT_EQ(second->opcode, 0xA);
  EXPECT_EQ(second->payload, "ping");
}

TEST_F(ServerWs, BadFramesCloseWithTheirCodeAndTheServerStaysUp) {
  struct Case {
    const char* name;
    std::string bytes;
    int code;
  };
  std::string too_big = ws_frame(0x2, "", true);
  too_big[1] = static_cast<char>(0x80 | 127);  // a 17 MiB length, no payload needed
  too_big.insert(2, std::string("\x00\x00\x00\x00\x01\x10\x00\x00", 8));
  too_big += "some";  // the first payload bytes: the frame is looked at once they arrive
  const Case cases[] = {
      {"unmasked", ws_frame(0x1, "hi", false), 1002},
      {"reserved opcode", ws_frame(0x3, "hi", true), 1002},
      {"reserved bits", ws_frame(0x1, "hi", true, true, 0x2), 1002},
      {"invalid utf-8", ws_frame(0x1, "\xc3\x28", true), 1007},
      {"oversized", too_big, 1009},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    RawWs client(server_->port());
    ASSERT_TRUE(switched(client.upgrade()));
    ASSERT_TRUE(client.send(c.bytes));
    auto close = client.read_frame();
    ASSERT_TRUE(close);
    EXPECT_EQ(close->opcode, 0x8);
    EXPECT_EQ(close->close_code(), c.code);
    EXPECT_TRUE(client.closed_by_peer());
  }
  RawWs after(server_->port());
  ASSERT_TRUE(switched(after.upgrade()));
  auto echo = after.exchange(0x1, "still here");
  ASSERT_TRUE(echo);
  EXPECT_EQ(echo->payload, "still here");
}

TEST_F(ServerWs, DelayAppliesPerMessage) {
  ASSERT_TRUE(
      restart_with([](server::ServerOptions& o) { o.delay = std::chrono::milliseconds(100); }));
  RawWs client(server_->port());
  ASSERT_TRUE(switched(client.upgrade()));
  const auto start = Clock::now();
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(client.exchange(0x1, "slow"));
  }
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(300));

  RawWs fast(server_->port());  // ?delay= on the upgrade replaces --delay for that socket
  ASSERT_TRUE(switched(fast.upgrade("/?delay=0")));
  const auto fast_start = Clock::now();
  ASSERT_TRUE(fast.exchange(0x1, "quick"));
  // Not delayed: the reply comes in less than one delay.
  EXPECT_LT(Clock::now() - fast_start, std::chrono::milliseconds(100));
}

TEST_F(ServerWs, SimulatedErrorsCloseWith1011) {
  ASSERT_TRUE(restart_with([](server::ServerOptions& o) {
    o.error_status = 500;
    o.error_percent = 50;
  }));
  RawWs client(server_->port());
  ASSERT_TRUE(switched(client.upgrade()));
  auto echo = client.exchange(0x1, "one");
  ASSERT_TRUE(echo);
  EXPECT_EQ(echo->payload, "one");
  auto close = client.exchange(0x1, "two");
  ASSERT_TRUE(close);
  EXPECT_EQ(close->close_code(), 1011);
  ASSERT_TRUE(client.send(ws_frame(0x8, "\x03\xf3", true)));  // our close answer
  EXPECT_TRUE(client.closed_by_peer());
  EXPECT_TRUE(totals_are(server_->stop(), {.requests = 2, .errors = 1}));
}

TEST_F(ServerWs, HandshakesCanBeRefused) {
  {
    RawWs client(server_->port());  // ?status= answers with that status instead of switching
    const std::string head = client.upgrade("/?status=503");
    EXPECT_EQ(head.rfind("HTTP/1.1 503 ", 0), 0u) << head;
  }
  {
    RawWs client(server_->port());
    ASSERT_TRUE(client.send(
        "GET / HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Version: 8\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"));
    const std::string head = client.read_until("\r\n\r\n");
    EXPECT_EQ(head.rfind("HTTP/1.1 426 ", 0), 0u) << head;
    EXPECT_NE(head.find("Sec-WebSocket-Version: 13"), std::string::npos);
  }
  {
    RawWs client(server_->port());
    ASSERT_TRUE(
        client.send("GET / HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    "Sec-WebSocket-Version: 13\r\n\r\n"));
    const std::string head = client.read_until("\r\n\r\n");
    EXPECT_EQ(head.rfind("HTTP/1.1 400 ", 0), 0u) << head;
  }
  const auto totals = server_->stop();
  EXPECT_EQ(totals.bad_requests, 2u);
}

TEST_F(ServerWs, StoppingClosesWithGoingAway) {
  RawWs client(server_->port());
  ASSERT_TRUE(switched(client.upgrade()));
  ASSERT_TRUE(client.exchange(0x1, "x"));
  std::thread stopper([&] { server_->stop(); });
  auto close = client.read_frame();
  ASSERT_TRUE(close);
  EXPECT_EQ(close->close_code(), 1001);
  ASSERT_TRUE(client.send(ws_frame(0x8, "\x03\xe9", true)));
  stopper.join();
}

}  // namespace
}  // namespace stampede::testing
