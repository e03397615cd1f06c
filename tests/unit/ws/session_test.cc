// The message layer fed byte by byte and whole: frames built by hand (RFC 6455 section 5).
#include "ws/session.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/ws_frames.h"

namespace stampede::ws {
namespace {

using stampede::testing::ws_close_frame;

std::string frame(std::uint8_t opcode, std::string_view payload, bool masked, bool fin = true,
                  std::uint8_t rsv = 0) {
  return stampede::testing::ws_frame(opcode, payload, masked, fin, rsv);
}

std::string close_frame(std::uint16_t code) {
  return ws_close_frame(code);
}

struct Collector : SessionHandler {
  std::vector<std::pair<bool, std::string>> messages;
  void on_message(const Message& m) override { messages.emplace_back(m.text, m.payload); }
};

// Feeds `bytes` whole, or one byte at a time.
void feed(Session& s, const std::string& bytes, bool byte_by_byte) {
  if (!byte_by_byte) {
    ASSERT_TRUE(s.feed(bytes.data(), bytes.size()));
    return;
  }
  for (char c : bytes)
    ASSERT_TRUE(s.feed(&c, 1));
}

class SessionTest : public ::testing::TestWithParam<bool> {};

TEST_P(SessionTest, ServerAssemblesMessagesAndAnswersPings) {
  Collector got;
  Session server(Role::Server, got);
  ASSERT_TRUE(server.reset());
  const std::string big(70000, 'b');
  const std::string input = frame(0x1, "hello", true) + frame(0x2, "\x01\x02", true) +
                            frame(0x1, "frag", true, false) + frame(0x9, "pi", true) +
                            frame(0x0, "mented", true, true) + frame(0x1, big, true) +
                            frame(0x1, std::string(200, 'm'), true);
  feed(server, input, GetParam());
  ASSERT_EQ(got.messages.size(), 5u);
  EXPECT_EQ(got.messages[0], std::make_pair(true, std::string("hello")));
  EXPECT_EQ(got.messages[1], std::make_pair(false, std::string("\x01\x02")));
  EXPECT_EQ(got.messages[2], std::make_pair(true, std::string("fragmented")));
  EXPECT_EQ(got.messages[3].second, big);
  EXPECT_EQ(got.messages[4].second, std::string(200, 'm'));
  EXPECT_EQ(server.output(), frame(0xA, "pi", false));  // the pong, unmasked
  EXPECT_TRUE(server.reading());
  EXPECT_EQ(server.failure(), 0);
}

struct BadInput {
  const char* name;
  std::string bytes;
  std::uint16_t code;
};

TEST_P(SessionTest, BadFramesCloseWithTheirCode) {
  const std::vector<BadInput> cases = {
      {"unmasked client frame", frame(0x1, "hi", false), kCloseProtocolError},
      {"reserved opcode", frame(0x3, "hi", true), kCloseProtocolError},
      {"reserved control opcode", frame(0xB, "", true), kCloseProtocolError},
      {"rsv bit", frame(0x1, "hi", true, true, 0x4), kCloseProtocolError},
      {"continuation first", frame(0x0, "hi", true), kCloseProtocolError},
      {"fragmented ping", frame(0x9, "hi", true, false), kCloseProtocolError},
      {"long ping", frame(0x9, std::string(126, 'p'), true), kCloseProtocolError},
      {"invalid utf-8", frame(0x1, "ok \xc3\x28", true), kCloseInvalidData},
      {"surrogate", frame(0x1, "\xed\xa0\x80", true), kCloseInvalidData},
      {"invalid utf-8, first fragment", frame(0x1, "ok \xc3\x28", true, false), kCloseInvalidData},
      {"too big", frame(0x2, std::string(2000, 'x'), true), kCloseTooBig},
  };
  for (const BadInput& c : cases) {
    SCOPED_TRACE(c.name);
    Collector got;
    Session server(Role::Server, got, SessionLimits{1024});
    ASSERT_TRUE(server.reset());
    feed(server, frame(0x1, "fine", true) + c.bytes + frame(0x1, "after", true), GetParam());
    ASSERT_EQ(got.messages.size(), 1u);
    EXPECT_EQ(server.failure(), c.code);
    EXPECT_FALSE(server.reading());
    EXPECT_TRUE(server.done());
    EXPECT_EQ(server.output(), close_frame(c.code));
  }
}

TEST_P(SessionTest, ClientAndServerTalkAndClose) {
  Collector at_client, at_server;
  Session client(Role::Client, at_client), server(Role::Server, at_server);
  ASSERT_TRUE(client.reset(7));
  ASSERT_TRUE(server.reset());
  auto pass = [&](Session& from, Session& to) {
    const std::string bytes(from.output());
    from.consume_output(bytes.size());
    feed(to, bytes, GetParam());
  };
  ASSERT_TRUE(client.send({true, "ping me"}));
  pass(client, server);
  ASSERT_EQ(at_server.messages.size(), 1u);
  ASSERT_TRUE(server.send({true, at_server.messages[0].second}));
  pass(server, client);
  ASSERT_EQ(at_client.messages.size(), 1u);
  EXPECT_EQ(at_client.messages[0].second, "ping me");

  client.close(kCloseNormal, "bye");
  EXPECT_FALSE(client.send({true, "late"}));
  pass(client, server);
  EXPECT_TRUE(server.close_received());
  EXPECT_EQ(server.received_code(), kCloseNormal);
  EXPECT_TRUE(server.done());
  pass(server, client);  // the echoed close
  EXPECT_TRUE(client.close_received());
  EXPECT_EQ(client.received_code(), kCloseNormal);
  EXPECT_TRUE(client.done());
  EXPECT_EQ(client.failure(), 0);
  EXPECT_EQ(server.failure(), 0);
}

TEST_P(SessionTest, ClientRefusesMaskedServerFrames) {
  Collector got;
  Session client(Role::Client, got);
  ASSERT_TRUE(client.reset(1));
  feed(client, frame(0x1, "masked", true), GetParam());
  EXPECT_TRUE(got.messages.empty());
  EXPECT_EQ(client.failure(), kCloseProtocolError);
}

TEST(Session, ResetStartsAfresh) {
  Collector got;
  Session server(Role::Server, got);
  ASSERT_TRUE(server.reset());
  const std::string bad = frame(0x1, "x", false);
  ASSERT_TRUE(server.feed(bad.data(), bad.size()));
  ASSERT_EQ(server.failure(), kCloseProtocolError);
  ASSERT_TRUE(server.reset());
  EXPECT_EQ(server.failure(), 0);
  EXPECT_TRUE(server.output().empty());
  const std::string good = frame(0x1, "again", true);
  ASSERT_TRUE(server.feed(good.data(), good.size()));
  ASSERT_EQ(got.messages.size(), 1u);
  EXPECT_EQ(got.messages[0].second, "again");
}

INSTANTIATE_TEST_SUITE_P(WholeAndByteByByte, SessionTest, ::testing::Values(false, true));

}  // namespace
}  // namespace stampede::ws
