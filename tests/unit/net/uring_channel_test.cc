// The io_uring receive channel (net/uring_channel.h) under a real ring and real loopback TCP:
// short reads, the end arriving with the last bytes, a reset, an owner that stops reading (held
// to its cap of the shared buffers), every provided buffer in use (the others read by
// readiness), and a closed channel that must outlive its receive until the final completion.
#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <liburing.h>
#include <sys/socket.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "net/event_loop.h"
#include "net/tcp_stream.h"
#include "net/uring_backend.h"
#include "support/loopback.h"

namespace stampede::net {

// Hands the poller completions that a test cannot make the kernel post on cue.
struct UringPollerProbe {
  static void complete(UringPoller& poller, const UringChannel& channel, int res,
                       std::uint32_t flags) {
    io_uring_cqe cqe{};
    cqe.user_data = (std::uint64_t{1} << 62) | channel.slot_;
    cqe.res = res;
    cqe.flags = flags;
    poller.collect(cqe);
  }
  static bool starved(const UringChannel& channel) { return channel.starved_; }
};

namespace {

using namespace std::chrono_literals;

constexpr int kMaxIterations = 2000;  // every loop below is bounded by this many waits

// A connected pair: `ours` accepted and non-blocking (the stream's), `peer` the blocking client.
// With `socket_buffer`, both sockets' kernel buffers are that small (a flood stops sooner).
struct ChannelPair {
  explicit ChannelPair(int socket_buffer = 0) {
    auto listener = testing::listen_loopback(4, SOCK_NONBLOCK);
    peer = testing::connect_loopback(listener.port);
    EXPECT_TRUE(testing::wait_readable(listener.fd.get(), 2000ms));
    IoStatus status;
    ours = accept_tcp(listener.fd.get(), status);
    EXPECT_TRUE(ours.valid());
    if (socket_buffer > 0) {
      EXPECT_EQ(::setsockopt(ours.get(), SOL_SOCKET, SO_RCVBUF, &socket_buffer, sizeof(int)), 0);
      EXPECT_EQ(::setsockopt(peer.get(), SOL_SOCKET, SO_SNDBUF, &socket_buffer, sizeof(int)), 0);
    }
  }
  Fd ours, peer;
};

// Reads what its stream has on each event, `capacity` bytes at a time, as a connection does:
// until WouldBlock, a Done shorter than asked, Eof or Error. Reads nothing while paused.
class Reader final : public IoHandler {
 public:
  Reader(EventLoop& loop, Fd fd, std::size_t capacity)
      : loop_(loop), stream(std::make_unique<TcpStream>(std::move(fd), loop)), capacity_(capacity) {
    EXPECT_TRUE(loop.add(stream->fd(), EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, this).ok());
  }
  ~Reader() {
    if (stream) loop_.forget(stream->fd());
  }
  void on_events(std::uint32_t) override {
    ++events;
    if (!paused) drain();
  }
  void drain() {
    std::string buffer(capacity_, '\0');
    for (;;) {
      std::size_t n = 0;
      last = stream->read(buffer.data(), capacity_, n);
      if (last != IoStatus::Done) return;
      received.append(buffer.data(), n);
      if (n < capacity_) return;
    }
  }

  EventLoop& loop_;
  std::unique_ptr<TcpStream> stream;
  std::size_t capacity_;
  std::string received;
  IoStatus last = IoStatus::WouldBlock;
  int events = 0;
  bool paused = false;
};

std::unique_ptr<EventLoop> uring_loop() {
  auto loop = EventLoop::create(IoBackend::Uring);
  EXPECT_TRUE(loop.ok());
  return loop ? std::move(loop.value()) : nullptr;
}

// Runs `loop` until `done()` or kMaxIterations waits of at most 10 ms each.
bool run_until(EventLoop& loop, const std::function<bool()>& done) {
  for (int i = 0; i < kMaxIterations && !done(); ++i)
    loop.run_once(10'000'000);
  return done();
}

// The bytes at [from, from + size) of one endless pattern (a byte out of place shows).
std::string pattern(std::size_t size, std::size_t from = 0) {
  std::string s(size, '\0');
  for (std::size_t i = from; i < from + size; ++i)
    s[i - from] = static_cast<char>('a' + (i * 7 + i / 251) % 26);
  return s;
}

// Sends the pattern from `peer` (made non-blocking) while `loop` runs, until `reader` holds its
// cap and the peer's socket is full (or stays full for 20 waits in a row; at most 32 MiB, 20000
// sends). Returns what was sent.
std::string flood(EventLoop& loop, int peer, const Reader& reader) {
  EXPECT_EQ(::fcntl(peer, F_SETFL, ::fcntl(peer, F_GETFL) | O_NONBLOCK), 0);
  constexpr std::size_t kBlock = 64 * 1024;
  const auto capped = [&] {
    return reader.stream->channel()->queued_buffers() >= UringChannel::kBufferCap;
  };
  std::string sent;
  int full = 0;
  for (int i = 0; i < 20000 && full < 20 && !(full >= 2 && capped()) && sent.size() < (32u << 20);
       ++i) {
    const std::string block = pattern(kBlock, sent.size());
    const ssize_t r = ::send(peer, block.data(), block.size(), MSG_NOSIGNAL);
    if (r > 0) {
      sent.append(block.data(), static_cast<std::size_t>(r));
      full = 0;
    } else {
      ++full;
    }
    loop.run_once(r > 0 ? 0 : 1'000'000);
  }
  return sent;
}

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
  auto created = UringPoller::create();
  ASSERT_TRUE(created.ok());
  auto& poller = static_cast<UringPoller&>(**created);
  ChannelPair pair;
  UringChannel* channel = poller.open_channel(pair.ours.get());
  ASSERT_NE(channel, nullptr);
  poller.close_channel(channel);  // the receive was never submitted: still "in flight" here
  EXPECT_EQ(poller.live_channels(), 1u);
  UringPollerProbe::complete(poller, *channel, 0, IORING_CQE_F_MORE);  // one more, then...
  EXPECT_EQ(poller.live_channels(), 1u);
  UringPollerProbe::complete(poller, *channel, -ECANCELED, 0);  // ...the final one
  EXPECT_EQ(poller.live_channels(), 0u);
}

}  // namespace
}  // namespace stampede::net
