// server::WsConnection over an in-memory TestStream (connection_harness.h): the upgrade and
// frames split at every byte, short writes of an echo, WANT_WRITE inside a read, a reset in a
// frame, a close in the middle of an echo, the end of the stream inside a frame, and a delayed
// echo whose client has gone. Each case checks the frames written and the worker's counters.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "support/ws_frames.h"
#include "unit/server/connection_harness.h"

namespace stampede::server {
namespace {

std::string upgrade_request(std::string_view target = "/") {
  return "GET " + std::string(target) +
         " HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
}

// The frames after the 101 answer in `bytes` (which must start with it).
std::vector<testing::ParsedWsFrame> frames_after_101(const std::string& bytes,
                                                     std::size_t* incomplete = nullptr) {
  EXPECT_EQ(bytes.rfind("HTTP/1.1 101 ", 0), 0u) << bytes;
  const std::size_t end = bytes.find("\r\n\r\n");
  if (end == std::string::npos) return {};
  return testing::ws_parse_frames(std::string_view(bytes).substr(end + 4), incomplete);
}

class ServerWsConnection : public WorkerHarness {
 protected:
  // Opens a connection and completes its upgrade; the 101 is written.
  void open_websocket(std::string_view target = "/") {
    open();
    deliver(upgrade_request(target));
    ASSERT_EQ(stream_->written().rfind("HTTP/1.1 101 ", 0), 0u) << stream_->written();
  }
};

TEST_F(ServerWsConnection, UpgradeAndFramesSplitAtEveryByteAreEchoedTheSame) {
  const std::string input = upgrade_request() + testing::ws_frame(0x1, "hello", true) +
                            testing::ws_frame(0x2, "\x01\x02\x03", true);
  std::string expected;
  for (std::size_t cut = 0; cut < input.size(); ++cut) {
    open();
    if (cut > 0) deliver(input.substr(0, cut));
    deliver(input.substr(cut));
    if (cut == 0) {
      expected = stream_->written();
      const auto frames = frames_after_101(expected);
      ASSERT_EQ(frames.size(), 2u);
      EXPECT_EQ(frames[0].opcode, 0x1);
      EXPECT_EQ(frames[0].payload, "hello");
      EXPECT_FALSE(frames[0].masked);
      EXPECT_EQ(frames[1].opcode, 0x2);
      EXPECT_EQ(frames[1].payload, "\x01\x02\x03");
    }
    EXPECT_EQ(stream_->written(), expected) << "cut at " << cut;
    hang_up();
    ASSERT_TRUE(closed()) << "cut at " << cut;
  }
  EXPECT_EQ(requests(), 2 * input.size());  // each data message counts as a request
  EXPECT_EQ(bad_requests(), 0u);
}

TEST_F(ServerWsConnection, FramesReadByteByByteAreEchoedInOrder) {
  open_websocket();
  std::string frames_in;
  for (int i = 0; i < 5; ++i)
    frames_in += testing::ws_frame(0x1, "m" + std::to_string(i), true);
  stream_->set_read_limit(1);
  stream_->feed(frames_in);
  for (std::size_t i = 0; i < frames_in.size(); ++i)
    events(kIn);
  const auto frames = frames_after_101(stream_->written());
  ASSERT_EQ(frames.size(), 5u);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(frames[i].payload, "m" + std::to_string(i));
  EXPECT_EQ(requests(), 5u);
  EXPECT_FALSE(closed());
}

TEST_F(ServerWsConnection, ShortWriteOfAnEchoSendsTheRestOnWritable) {
  open_websocket();
  const std::string payload(300, 'p');
  // The read, then the echo's write taking 5 bytes; the next write in the same activation
  // finds the stream full.
  stream_->fail_at(stream_->operations() + 2, Fault::Short, 5);
  stream_->fail_at(stream_->operations() + 3, Fault::WouldBlock);
  deliver(testing::ws_frame(0x2, payload, true));
  std::size_t incomplete = 0;
  EXPECT_TRUE(frames_after_101(stream_->written(), &incomplete).empty());
  EXPECT_EQ(incomplete, 5u);
  events(kOut);
  const auto frames = frames_after_101(stream_->written(), &incomplete);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].payload, payload);
  EXPECT_EQ(incomplete, 0u);  // nothing twice
  EXPECT_EQ(requests(), 1u);
}

TEST_F(ServerWsConnection, WantWriteInsideAReadIsRetriedWhenWritable) {
  open_websocket();
  stream_->fail_at(stream_->operations() + 1, Fault::WantWrite);
  deliver(testing::ws_frame(0x1, "later", true));
  EXPECT_TRUE(frames_after_101(stream_->written()).empty());
  events(kOut);  // the record layer could write: the read goes on
  const auto frames = frames_after_101(stream_->written());
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].payload, "later");
  EXPECT_EQ(requests(), 1u);
}

TEST_F(ServerWsConnection, ResetInsideAFrameClosesWithoutEcho) {
  open_websocket();
  const std::string frame = testing::ws_frame(0x1, "hello", true);
  deliver(frame.substr(0, 4));
  stream_->fail_at(stream_->operations() + 1, Fault::Reset);
  deliver(frame.substr(4));
  EXPECT_TRUE(closed());
  EXPECT_TRUE(frames_after_101(stream_->written()).empty());
  EXPECT_TRUE(counts_are({.requests = 0, .bad_requests = 0}));
}

TEST_F(ServerWsConnection, EndOfStreamInsideAFrameClosesWithoutEcho) {
  open_websocket();
  deliver(testing::ws_frame(0x1, "hello", true).substr(0, 5));
  hang_up();
  EXPECT_TRUE(closed());
  EXPECT_TRUE(frames_after_101(stream_->written()).empty());
  EXPECT_TRUE(counts_are({.requests = 0, .served = 0}));
}

TEST_F(ServerWsConnection, CloseInTheMiddleOfAnEchoClosesAfterThePrefix) {
  open_websocket();
  const std::size_t before = stream_->written().size();
  stream_->fail_at(stream_->operations() + 2, Fault::CloseMidWrite, 3);
  deliver(testing::ws_frame(0x1, "hello", true));
  EXPECT_TRUE(closed());
  EXPECT_EQ(stream_->written().size(), before + 3);
  EXPECT_EQ(requests(), 1u);  // the message arrived whole
}

TEST_F(ServerWsConnection, DelayedEchoToAClientThatResetIsDropped) {
  open_websocket("/?delay=20");
  deliver(testing::ws_frame(0x1, "hello", true));
  stream_->fail_at(stream_->operations() + 1, Fault::Reset);
  events(kReset);
  EXPECT_TRUE(closed());
  EXPECT_EQ(requests(), 1u);
  // The pooled object serves the next client; the gone client's echo must not reach it.
  open_websocket("/?delay=300");
  const std::size_t after_101 = stream_->written().size();
  run_loop_for(40);  // past the gone client's 20 ms, well before this one's 300 ms
  EXPECT_EQ(stream_->written().size(), after_101);
  deliver(testing::ws_frame(0x1, "mine", true));
  run_loop_until([&] { return !frames_after_101(stream_->written()).empty(); });
  const auto frames = frames_after_101(stream_->written());
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].payload, "mine");
  EXPECT_EQ(requests(), 2u);
}

}  // namespace
}  // namespace stampede::server
