// The io_uring receive channel (net/uring_channel.h) under a real ring and real loopback TCP:
// short reads, the end arriving with the last bytes, a reset, every provided buffer in use, and
// a closed channel that must outlive its receive until the final completion.
#include <errno.h>
#include <gtest/gtest.h>
#include <liburing.h>
#include <sys/socket.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

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
};

namespace {

using namespace std::chrono_literals;

constexpr int kMaxIterations = 2000;  // every loop below is bounded by this many waits

// A connected pair: `ours` accepted and non-blocking (the stream's), `peer` the blocking client.
struct ChannelPair {
  ChannelPair() {
    auto listener = testing::listen_loopback(4, SOCK_NONBLOCK);
    peer = testing::connect_loopback(listener.port);
    EXPECT_TRUE(testing::wait_readable(listener.fd.get(), 2000ms));
    IoStatus status;
    ours = accept_tcp(listener.fd.get(), status);
    EXPECT_TRUE(ours.valid());
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

std::string pattern(std::size_t size) {
  std::string s(size, '\0');
  for (std::size_t i = 0; i < size; ++i)
    s[i] = static_cast<char>('a' + (i * 7 + i / 251) % 26);
  return s;
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

TEST(UringChannel, EveryBufferInUseStallsReceivesUntilOneComesBack) {
  if (!UringPoller::receive_unavailable().empty()) GTEST_SKIP() << "no multishot receive";
  auto loop = uring_loop();
  ChannelPair hog_pair, other_pair;
  Reader hog(*loop, std::move(hog_pair.ours), 1 << 20);
  Reader other(*loop, std::move(other_pair.ours), 4096);
  hog.paused = true;
  // One small message per completion: each lands in a buffer of its own, until all 256 are
  // taken; the rest stay in the socket.
  std::string sent;
  for (int i = 0; i < 300; ++i) {
    const std::string message = "message " + std::to_string(i) + ";";
    ASSERT_TRUE(testing::send_all(hog_pair.peer.get(), message));
    sent += message;
    const int before = hog.events;
    if (i < 256) {
      ASSERT_TRUE(run_until(*loop, [&] { return hog.events > before; })) << i;
    } else {
      loop->run_once(1'000'000);
    }
  }
  ASSERT_TRUE(testing::send_all(other_pair.peer.get(), "starved"));
  for (int i = 0; i < 20; ++i)
    loop->run_once(1'000'000);
  EXPECT_EQ(other.received, "") << "a receive got a buffer although all were held";
  hog.paused = false;
  hog.drain();  // gives the buffers back
  ASSERT_TRUE(run_until(*loop, [&] {
    if (hog.events > 0) hog.drain();
    return other.received == "starved" && hog.received.size() == sent.size();
  }));
  EXPECT_EQ(hog.received, sent);
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
