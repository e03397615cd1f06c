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
      // wslay 1.1.1 takes a 1-byte close payload for a close without a code.
      {"close with a 1-byte payload", frame(0x8, "\x03", true), kCloseProtocolError},
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

// A handler that echoes every message (as `stampede serve` does) or closes on the first one.
struct Replier : SessionHandler {
  Session* session = nullptr;
  bool close_on_message = false;
  std::vector<std::string> messages;
  void on_message(const Message& m) override {
    messages.emplace_back(m.payload);
    if (close_on_message) {
      session->close(kCloseInternalError, "ERROR");
    } else {
      session->send(m);
    }
  }
};

// The frames a session wrote, as "opcode:payload" (unmasked), for every way of cutting `input`:
// whole, at every byte into two reads, and byte by byte; each must write the same.
std::vector<std::string> written_for_every_split(Role role, const std::string& input,
                                                 bool close_on_message = false) {
  std::vector<std::vector<std::size_t>> cuttings = {{}};
  for (std::size_t i = 1; i < input.size(); ++i)
    cuttings.push_back({i});
  std::vector<std::size_t> every;
  for (std::size_t i = 1; i < input.size(); ++i)
    every.push_back(i);
  cuttings.push_back(every);
  std::vector<std::string> first;
  for (const auto& cuts : cuttings) {
    Replier replier;
    replier.close_on_message = close_on_message;
    Session session(role, replier);
    replier.session = &session;
    EXPECT_TRUE(session.reset(3));
    std::size_t start = 0;
    std::vector<std::size_t> ends = cuts;
    ends.push_back(input.size());
    std::string output;
    for (std::size_t end : ends) {
      EXPECT_TRUE(session.feed(input.data() + start, end - start));
      output += session.output();
      session.consume_output(session.output().size());
      start = end;
    }
    std::vector<std::string> written;
    for (const auto& f : stampede::testing::ws_parse_frames(output))
      written.push_back(std::to_string(f.opcode) + ":" + f.payload);
    written.push_back("failure=" + std::to_string(session.failure()));
    if (cuts.size() == 0) {
      first = written;
    } else {
      EXPECT_EQ(written, first) << "cut at " << cuts.front() << " of " << cuts.size();
    }
  }
  return first;
}

// Fuzz finding split-valid-close-reason-rejected: wslay checked a close reason split across
// reads from the wrong offset and refused a valid one with 1007.
TEST(SessionSplits, ValidCloseReasonSplitAcrossReadsIsEchoed) {
  const std::string payload =
      "\x03\xe8"
      "a\xc3\xa9\xe2\x82\xac";  // 1000, "aé€"
  const std::string input = frame(0x8, payload, true);
  const std::vector<std::string> expected = {"8:" + payload, "failure=0"};
  EXPECT_EQ(written_for_every_split(Role::Server, input), expected);
  Collector got;
  Session server(Role::Server, got);
  ASSERT_TRUE(server.reset());
  ASSERT_TRUE(server.feed(input.data(), 8));  // the header and the code
  ASSERT_TRUE(server.feed(input.data() + 8, input.size() - 8));
  EXPECT_EQ(server.failure(), 0);
  EXPECT_TRUE(server.close_received());
  EXPECT_EQ(server.received_code(), kCloseNormal);
}

// Fuzz finding split-close-reason-utf8-check-skipped: fed byte by byte, wslay skipped every
// byte of the reason and accepted an invalid one.
TEST(SessionSplits, InvalidCloseReasonFedByteByByteIsRefused) {
  const std::string input = frame(0x8, "\x03\xe8\xc0\xaf", true);  // 1000, overlong '/'
  EXPECT_EQ(written_for_every_split(Role::Server, input),
            (std::vector<std::string>{"8:\x03\xef", "failure=1007"}));
}

// Fuzz finding split-pong-lost-when-close-in-same-read: RFC 6455 5.5.2, the ping before the
// close is answered.
TEST(SessionSplits, PingBeforeCloseInOneReadIsAnswered) {
  const std::string input = frame(0x9, "pi", true) + frame(0x8, "\x03\xe8", true);
  EXPECT_EQ(written_for_every_split(Role::Server, input),
            (std::vector<std::string>{"10:pi", "8:\x03\xe8", "failure=0"}));
}

// The same for a handler's reply to a message followed by the close in the same read.
TEST(SessionSplits, ReplyBeforeCloseInOneReadIsWritten) {
  const std::string input = frame(0x1, "hi", true) + frame(0x8, "\x03\xe8", true);
  EXPECT_EQ(written_for_every_split(Role::Server, input),
            (std::vector<std::string>{"1:hi", "8:\x03\xe8", "failure=0"}));
}

// Fuzz finding split-reply-lost-before-refused-frame: the handler's reply to a message was
// dropped when a refused frame (a 128-byte ping) followed it in the same read.
TEST(SessionSplits, ReplyBeforeARefusedFrameIsWritten) {
  const std::string input = frame(0x2, "z", false) + frame(0x9, std::string(128, 'p'), false);
  EXPECT_EQ(written_for_every_split(Role::Client, input),
            (std::vector<std::string>{"2:z", "8:\x03\xea", "failure=1002"}));
}

// After our own close (the handler's), a refused frame from the peer stops reading but adds no
// second close frame.
TEST(SessionSplits, RefusedFrameAfterOurCloseWritesNoSecondClose) {
  const std::string input = frame(0x1, "hi", true) + frame(0x9, std::string(128, 'p'), true);
  EXPECT_EQ(written_for_every_split(Role::Server, input, true),
            (std::vector<std::string>{"8:\x03\xf3"
                                      "ERROR",
                                      "failure=0"}));
}

INSTANTIATE_TEST_SUITE_P(WholeAndByteByByte, SessionTest, ::testing::Values(false, true));

}  // namespace
}  // namespace stampede::ws
