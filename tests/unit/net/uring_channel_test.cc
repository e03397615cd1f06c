// The io_uring receive channel (net/uring_channel.h) under a real ring and real loopback TCP:
// short reads, the end arriving with the last bytes, a reset, an owner that stops reading (held
// to its cap of the shared buffers), every provided buffer in use (the others read by
// readiness), and a closed channel that must outlive its receive until the final completion.
#include "uring_fixture.h"

namespace stampede::net {
namespace {

using namespace uring_test;

TEST(UringChannel, ShortReadsDeliverEveryByteInOrder) {
  if (!UringPoller::receive_unavailable().empty()) GTEST_SKIP() << "no multishot receive";
  auto loop = uring_loop();
  ChannelPair pair;
  Reader reader(*loop, std::move(pair.ours), 1000);
  ASSERT_TRUE(reader.stream->attached());
  const std::string sent = pattern(200'000);  // more than the 16 KiB of one buffer, many times
  ASSERT_TRUE(testing::send_all(pair.peer.get(), sent));
  ASSERT_TRUE(run_until(*loop, [&] { return reader.received.size() >= sent.size(); }));
  EXPECT_EQ(reader.received, sent);
}

TEST(UringChannel, EndThatArrivesWithTheLastBytesIsReportedToo) {
  if (!UringPoller::receive_unavailable().empty()) GTEST_SKIP() << "no multishot receive";
  auto loop = uring_loop();
  ChannelPair pair;
  Reader reader(*loop, std::move(pair.ours), 4096);
  // Bytes and FIN before the loop first waits: one dispatch brings both, and the reader stops
  // at its short Done, as the Stream contract lets it.
  ASSERT_TRUE(testing::send_all(pair.peer.get(), "last words"));
  ASSERT_EQ(::shutdown(pair.peer.get(), SHUT_WR), 0);
  ASSERT_TRUE(testing::wait_readable(reader.stream->fd(), 2000ms));
  ASSERT_TRUE(run_until(*loop, [&] { return reader.last == IoStatus::Eof; }));
  EXPECT_EQ(reader.received, "last words");
}

TEST(UringChannel, ResetIsAnErrorWithItsErrno) {
  if (!UringPoller::receive_unavailable().empty()) GTEST_SKIP() << "no multishot receive";
  auto loop = uring_loop();
  ChannelPair pair;
  Reader reader(*loop, std::move(pair.ours), 4096);
  linger abort{1, 0};  // close sends RST
  ASSERT_EQ(::setsockopt(pair.peer.get(), SOL_SOCKET, SO_LINGER, &abort, sizeof abort), 0);
  pair.peer = Fd();
  ASSERT_TRUE(run_until(*loop, [&] { return reader.last == IoStatus::Error; }));
  EXPECT_EQ(reader.stream->error(), ECONNRESET);
}

// The hazard of one shared ring: an owner that stops reading (a client that pipelines a huge
// burst and never reads its answers, a stalled upstream) must not take every buffer of its loop.
TEST(UringChannel, OwnerThatStopsReadingHoldsItsCapAndOthersStillReceive) {
  if (!UringPoller::receive_unavailable().empty()) GTEST_SKIP() << "no multishot receive";
  auto loop = uring_loop();
  ChannelPair hog_pair(64 * 1024), other_pair;
  Reader hog(*loop, std::move(hog_pair.ours), 1 << 20);
  Reader other(*loop, std::move(other_pair.ours), 4096);
  hog.paused = true;
  const std::string sent = flood(*loop, hog_pair.peer.get(), hog);
  ASSERT_GT(sent.size(), UringChannel::kBufferCap * 16 * 1024) << "the flood stopped early";
  // At the cap the receive is cancelled; the few completions already under way still land.
  EXPECT_GE(hog.stream->channel()->queued_buffers(), UringChannel::kBufferCap);
  EXPECT_LE(hog.stream->channel()->queued_buffers(), 2 * UringChannel::kBufferCap);
  ASSERT_TRUE(testing::send_all(other_pair.peer.get(), "not starved"));
  EXPECT_TRUE(run_until(*loop, [&] { return other.received == "not starved"; }))
      << "another socket of the loop got no buffer";
  hog.paused = false;
  hog.drain();  // below kResumeBelow: the receive is armed again and brings the rest
  ASSERT_TRUE(run_until(*loop, [&] { return hog.received.size() >= sent.size(); }));
  EXPECT_TRUE(hog.received == sent) << "bytes lost or out of order";
  EXPECT_NE(hog.last, IoStatus::Error);
}

// Enough owners at their cap take every buffer: a receive then ends with -ENOBUFS, and its
// channel reads the socket by readiness (no byte lost, no error) until the ring has room again.
TEST(UringChannel, EveryBufferHeldLeavesOthersReadingTheirSocketsUntilOneComesBack) {
  if (!UringPoller::receive_unavailable().empty()) GTEST_SKIP() << "no multishot receive";
  auto loop = uring_loop();
  constexpr std::size_t kHogs = 256 / UringChannel::kBufferCap + 1;  // one more than enough
  std::vector<std::unique_ptr<ChannelPair>> pairs;
  std::vector<std::unique_ptr<Reader>> hogs;
  std::vector<std::string> sent;
  for (std::size_t i = 0; i < kHogs; ++i) {
    pairs.push_back(std::make_unique<ChannelPair>(64 * 1024));
    hogs.push_back(std::make_unique<Reader>(*loop, std::move(pairs.back()->ours), 1 << 20));
    hogs.back()->paused = true;
    sent.push_back(flood(*loop, pairs.back()->peer.get(), *hogs.back()));
  }
  ChannelPair other_pair;
  Reader other(*loop, std::move(other_pair.ours), 4096);
  const std::string message = pattern(100'000);
  ASSERT_TRUE(testing::send_all(other_pair.peer.get(), message));
  ASSERT_TRUE(run_until(*loop, [&] { return other.received.size() >= message.size(); }))
      << "a starved receive waited for a buffer instead of reading its socket";
  EXPECT_TRUE(other.received == message);
  EXPECT_TRUE(UringPollerProbe::starved(*other.stream->channel())) << "the ring was not exhausted";
  for (auto& hog : hogs) {
    hog->paused = false;
    hog->drain();
  }
  ASSERT_TRUE(run_until(*loop, [&] {
    for (std::size_t i = 0; i < kHogs; ++i)
      if (hogs[i]->received.size() < sent[i].size()) return false;
    return true;
  }));
  for (std::size_t i = 0; i < kHogs; ++i)
    EXPECT_TRUE(hogs[i]->received == sent[i]) << "hog " << i << ": bytes lost or out of order";
  // The ring has room again: the next bytes come through the receive, armed anew.
  ASSERT_TRUE(testing::send_all(other_pair.peer.get(), "again"));
  ASSERT_TRUE(run_until(*loop, [&] { return other.received.size() >= message.size() + 5; }));
  EXPECT_EQ(other.received.substr(message.size()), "again");
  EXPECT_FALSE(UringPollerProbe::starved(*other.stream->channel()));
  EXPECT_NE(other.last, IoStatus::Error);
}

TEST(UringChannel, ClosedChannelLivesUntilItsReceiveEnds) {
  if (!UringPoller::receive_unavailable().empty()) GTEST_SKIP() << "no multishot receive";
  auto loop = uring_loop();
  ChannelPair pair;
  {
    Reader reader(*loop, std::move(pair.ours), 4096);
    loop->run_once(0);  // the receive is in flight
  }
  EXPECT_EQ(loop->live_channels(), 1u) << "freed before its receive's final completion";
  ASSERT_TRUE(run_until(*loop, [&] { return loop->live_channels() == 0; }));
}

// Cancelling a multishot receive may answer -EALREADY: the receive goes on and posts more
// completions (IORING_CQE_F_MORE) before its final one. The channel must survive all of them.
TEST(UringChannel, CancelAnsweredAlreadyKeepsTheChannelUntilTheFinalCompletion) {
  if (!UringPoller::receive_unavailable().empty()) GTEST_SKIP() << "no multishot receive";
  BarePoller bare;
  ASSERT_NE(bare.channel, nullptr);
  // The receive was never submitted: still "in flight" here.
  bare.poller->close_channel(bare.channel);
  EXPECT_EQ(bare.poller->live_channels(), 1u);
  // One more completion, then...
  UringPollerProbe::complete(*bare.poller, *bare.channel, 0, IORING_CQE_F_MORE);
  EXPECT_EQ(bare.poller->live_channels(), 1u);
  UringPollerProbe::complete(*bare.poller, *bare.channel, -ECANCELED, 0);  // ...the final one
  EXPECT_EQ(bare.poller->live_channels(), 0u);
}

}  // namespace
}  // namespace stampede::net
