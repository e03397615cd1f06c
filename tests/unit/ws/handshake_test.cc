#include "ws/handshake.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <iterator>

#include "http/request_parser.h"

namespace stampede::ws {
namespace {

TEST(Handshake, AcceptOfTheRfcExample) {
  // RFC 6455 section 1.3.
  EXPECT_EQ(accept_for("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST(Handshake, KeysAreSixteenBytesInBase64AndDiffer) {
  Random random(42);
  const std::string a = make_key(random), b = make_key(random);
  EXPECT_EQ(a.size(), 24u);
  EXPECT_EQ(a.substr(22), "==");
  EXPECT_NE(a, b);
}

TEST(Handshake, RequestIsWhatAServerAccepts) {
  const std::vector<std::pair<std::string, std::string>> headers = {{"user-agent", "t/1"}};
  const std::string prefix = request_prefix({"/chat?x=1", "example.com:8080", headers});
  std::string request;
  finish_request(request, prefix, "dGhlIHNhbXBsZSBub25jZQ==");
  http::RequestParser parser;
  ASSERT_EQ(parser.feed(request).event, http::Event::HeadComplete);
  EXPECT_TRUE(parser.upgrade());
  EXPECT_TRUE(wants_websocket(parser));
  EXPECT_EQ(parser.target(), "/chat?x=1");
  EXPECT_EQ(parser.header("host"), "example.com:8080");
  EXPECT_EQ(parser.header("user-agent"), "t/1");
  const Verdict verdict = check_request(parser);
  EXPECT_EQ(verdict.status, 0) << verdict.reason;
  EXPECT_EQ(verdict.key, "dGhlIHNhbXBsZSBub25jZQ==");
  std::string answer;
  append_accept(answer, verdict.key);
  EXPECT_NE(answer.find("HTTP/1.1 101 Switching Protocols\r\n"), std::string::npos);
  EXPECT_NE(answer.find("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"),
            std::string::npos);
}

Verdict verdict_of(const std::string& head) {
  http::RequestParser parser;
  const http::Step step = parser.feed(head);
  EXPECT_EQ(step.event, http::Event::HeadComplete) << head;
  return check_request(parser);
}

TEST(Handshake, BadRequestsAreRefused) {
  const std::string good_tail =
      "Host: h\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"
      "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n";
  EXPECT_EQ(verdict_of("GET / HTTP/1.1\r\n" + good_tail).status, 0);
  EXPECT_EQ(verdict_of("POST / HTTP/1.1\r\nContent-Length: 0\r\n" + good_tail).status, 400);
  EXPECT_EQ(
      verdict_of("GET / HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 "Sec-WebSocket-Version: 8\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
          .status,
      426);
  EXPECT_EQ(verdict_of("GET / HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                       "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: short==\r\n\r\n")
                .status,
            400);
  EXPECT_EQ(verdict_of("GET / HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                       "Sec-WebSocket-Version: 13\r\n\r\n")
                .status,
            400);
  // RFC 6455 11.3.1, 11.3.5: the key and the version appear once; and no body.
  const std::string key = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
  const std::string head =
      "GET / HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\n"
      "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n";
  EXPECT_EQ(verdict_of(head + key + key + "\r\n").status, 400);
  EXPECT_EQ(verdict_of(head + key + "Sec-WebSocket-Key: AQIDBAUGBwgJCgsMDQ4PEA==\r\n\r\n").status,
            400);
  EXPECT_EQ(verdict_of(head + "Sec-WebSocket-Version: 8\r\n" + key + "\r\n").status, 400);
  EXPECT_EQ(verdict_of(head + key + "Content-Length: 5\r\n\r\n").status, 400);
  EXPECT_EQ(verdict_of(head + key + "Transfer-Encoding: chunked\r\n\r\n").status, 400);
  EXPECT_EQ(verdict_of(head + key + "Content-Length: 0\r\n\r\n").status, 0);
  std::string refusal;
  append_refusal(refusal, Verdict{426, "only 13", {}});
  EXPECT_EQ(refusal.rfind("HTTP/1.1 426 Upgrade Required\r\n", 0), 0u);
  EXPECT_NE(refusal.find("Sec-WebSocket-Version: 13\r\n"), std::string::npos);
}

TEST(Handshake, ClientChecksTheAnswer) {
  const std::string_view key = "dGhlIHNhbXBsZSBub25jZQ==";
  const std::string_view right = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";
  const Answer good{"websocket", "Upgrade", right, std::nullopt, std::nullopt};
  EXPECT_TRUE(check_response(good, key));
  Answer a = good;
  a.upgrade = "WebSocket";
  a.connection = "keep-alive, upgrade";
  EXPECT_TRUE(check_response(a, key));
  // Each a change of the good answer that fails it. RFC 6455 4.1: a missing Connection: Upgrade,
  // or an extension or subprotocol the client did not ask for, fails the connection too.
  const std::function<void(Answer&)> failing[] = {
      [](Answer& b) { b.accept = "AAAAAAAAAAAAAAAAAAAAAAAAAAA="; },
      [](Answer& b) { b.upgrade = std::nullopt; },
      [](Answer& b) { b.accept = std::nullopt; },
      [](Answer& b) { b.connection = std::nullopt; },
      [](Answer& b) { b.connection = "keep-alive"; },
      [](Answer& b) { b.extensions = "permessage-deflate"; },
      [](Answer& b) { b.protocol = "chat"; },
  };
  for (std::size_t i = 0; i < std::size(failing); ++i) {
    a = good;
    failing[i](a);
    EXPECT_FALSE(check_response(a, key)) << "change " << i;
  }
}

}  // namespace
}  // namespace stampede::ws
