// The io_uring channel's sending side and its batched buffer return (net/uring_channel.h) under
// a real ring and real loopback TCP: writes leave through IORING_OP_SEND in order, a partial send
// is completed before later bytes, a write beyond the cap waits for EPOLLOUT, bytes written just
// before a close or a shutdown still arrive (then the end), a failed send is an Error, and the
// buffers read out of channels go back to the kernel in one ring advance per wait.
#include <sys/time.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "uring_fixture.h"

namespace stampede::net {
namespace {

using namespace uring_test;

// The wait of one loop iteration where the peer reads between them (a send waits for its reads).
constexpr std::int64_t kPeerReads = 1'000'000;

// Sets the kernel's buffers of the sending socket `ours` and the receiving `peer` small, so
// that a write of some 100 KiB cannot leave in one send.
void shrink_buffers(int ours, int peer) {
  const int size = 16 * 1024;
  EXPECT_EQ(::setsockopt(ours, SOL_SOCKET, SO_SNDBUF, &size, sizeof size), 0);
  EXPECT_EQ(::setsockopt(peer, SOL_SOCKET, SO_RCVBUF, &size, sizeof size), 0);
}

// Appends to `into` what `peer` holds now (never blocks); false once it reads the end.
bool take_available(int peer, std::string& into) {
  char buffer[8192];
  for (;;) {
    const ssize_t r = ::recv(peer, buffer, sizeof buffer, MSG_DONTWAIT);
    if (r > 0) {
      into.append(buffer, static_cast<std::size_t>(r));
      continue;
    }
    return r != 0;
  }
}

// Writes `data` through its stream as a connection does: until WouldBlock, then again at the
// next EPOLLOUT. With `one_write`, once per event as the server's connection does: a short Done
// (the socket filled up) also waits for the next EPOLLOUT.
class Writer final : public IoHandler {
 public:
  Writer(EventLoop& loop, Fd fd)
      : loop_(loop), stream(std::make_unique<TcpStream>(std::move(fd), loop)) {
    EXPECT_TRUE(loop.add(stream->fd(), EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, this).ok());
  }
  ~Writer() {
    if (stream) loop_.forget(stream->fd());
  }
  void on_events(std::uint32_t events) override {
    if (events & EPOLLOUT) ++writable;
    push();
  }
  void push() {
    while (offset < data.size()) {
      std::size_t n = 0;
      last = stream->write(data.data() + offset, data.size() - offset, n);
      if (last != IoStatus::Done) {
        if (last == IoStatus::WouldBlock) ++blocked;
        return;
      }
      offset += n;
      if (one_write) return;
    }
  }

  EventLoop& loop_;
  std::unique_ptr<TcpStream> stream;
  std::string data;
  std::size_t offset = 0;
  IoStatus last = IoStatus::Done;
  int writable = 0;
  int blocked = 0;
  bool one_write = false;
};

TEST(UringSend, WritesLeaveThroughTheRingInOrder) {
  if (!UringPoller::receive_unavailable().empty()) GTEST_SKIP() << "no multishot receive";
  auto loop = uring_loop();
  ChannelPair pair;
  Writer writer(*loop, std::move(pair.ours));
  ASSERT_TRUE(writer.stream->attached());
  std::string sent;
  for (int i = 0; i < 50; ++i) {  // small writes, as requests are
    const std::string piece = pattern(100 + i, sent.size());
    std::size_t n = 0;
    ASSERT_EQ(writer.stream->write(piece.data(), piece.size(), n), IoStatus::Done);
    ASSERT_EQ(n, piece.size());
    sent += piece;
  }
  // Taken, not sent: no send system call went out; the loop's next wait submits them.
  std::string received;
  take_available(pair.peer.get(), received);
  EXPECT_TRUE(received.empty()) << "a write went out by itself, not through the ring";
  EXPECT_EQ(writer.stream->channel()->unsent_bytes(), sent.size());
  ASSERT_TRUE(run_until(*loop, [&] {
    take_available(pair.peer.get(), received);
    return received.size() >= sent.size();
  }));
  EXPECT_TRUE(received == sent) << "bytes lost or out of order";
  EXPECT_EQ(writer.stream->channel()->unsent_bytes(), 0u);
}

// The kernel takes what fits of a send into a full socket and completes it with that count: the
// rest goes again, and bytes written meanwhile follow it, not overtake it.
TEST(UringSend, PartialSendIsCompletedBeforeLaterBytes) {
  if (!UringPoller::receive_unavailable().empty()) GTEST_SKIP() << "no multishot receive";
  auto loop = uring_loop();
  ChannelPair pair;
  shrink_buffers(pair.ours.get(), pair.peer.get());
  Writer writer(*loop, std::move(pair.ours));
  const std::string first = pattern(150'000);
  std::size_t n = 0;
  ASSERT_EQ(writer.stream->write(first.data(), first.size(), n), IoStatus::Done);
  ASSERT_EQ(n, first.size());
  const UringChannel& channel = *writer.stream->channel();
  ASSERT_TRUE(run_until(
      *loop, [&] { return UringPollerProbe::partly_sent(channel) > 0; }, kPeerReads))
      << "the first send was not partial";
  const std::string second = pattern(1000, first.size());
  ASSERT_EQ(writer.stream->write(second.data(), second.size(), n), IoStatus::Done);
  std::string received;
  ASSERT_TRUE(run_until(
      *loop,
      [&] {
        take_available(pair.peer.get(), received);
        return received.size() >= first.size() + second.size();
      },
      kPeerReads));
  EXPECT_TRUE(received == first + second) << "bytes lost, repeated or out of order";
}

// Beyond kSendCap unsent bytes write() says WouldBlock; EPOLLOUT comes once sends made room.
TEST(UringSend, WriteBeyondTheCapWaitsForWritable) {
  if (!UringPoller::receive_unavailable().empty()) GTEST_SKIP() << "no multishot receive";
  auto loop = uring_loop();
  ChannelPair pair;
  Writer writer(*loop, std::move(pair.ours));
  writer.data = pattern(3 * UringChannel::kSendCap);
  writer.push();
  EXPECT_EQ(writer.last, IoStatus::WouldBlock);
  EXPECT_EQ(writer.offset, UringChannel::kSendCap);
  const int writable_before = writer.writable;
  std::string received;
  ASSERT_TRUE(run_until(
      *loop,
      [&] {
        take_available(pair.peer.get(), received);
        return received.size() >= writer.data.size();
      },
      kPeerReads));
  EXPECT_TRUE(received == writer.data) << "bytes lost or out of order";
  EXPECT_GE(writer.blocked, 1);
  EXPECT_GT(writer.writable, writable_before) << "no EPOLLOUT after a WouldBlock";
}

// A write the channel takes only part of (it reaches the cap) is a short Done, which means "the
// socket is full: wait for EPOLLOUT". The server's connection writes once per event and waits;
// EPOLLOUT must come when the sends have made room, whether the peer reads at once or slowly
// (ServerProtocol.LargeAnswersSurviveASlowReader/uring stalled without it).
TEST(UringSend, ShortWriteIsFollowedByWritable) {
  if (!UringPoller::receive_unavailable().empty()) GTEST_SKIP() << "no multishot receive";
  auto loop = uring_loop();
  for (const std::size_t per_wait : {std::size_t{1} << 30, std::size_t{64} << 10}) {
    SCOPED_TRACE(per_wait > (1u << 20) ? "prompt reader" : "slow reader");
    ChannelPair pair;
    Writer writer(*loop, std::move(pair.ours));
    writer.one_write = true;
    writer.data = pattern(4 * UringChannel::kSendCap + 1000);
    writer.push();
    ASSERT_EQ(writer.last, IoStatus::Done);
    ASSERT_EQ(writer.offset, UringChannel::kSendCap) << "the first write was not short";
    std::string received;
    run_until(
        *loop,
        [&] {
          std::string got;
          char buffer[8192];
          while (got.size() < per_wait) {
            const ssize_t r = ::recv(pair.peer.get(), buffer,
                                     std::min(sizeof buffer, per_wait - got.size()), MSG_DONTWAIT);
            if (r <= 0) break;
            got.append(buffer, static_cast<std::size_t>(r));
          }
          received += got;
          return received.size() >= writer.data.size();
        },
        kPeerReads);
    EXPECT_EQ(writer.offset, writer.data.size()) << "no EPOLLOUT after a short write";
    ASSERT_EQ(received.size(), writer.data.size());
    EXPECT_TRUE(received == writer.data) << "bytes lost or out of order";
  }
}

// A stream closed (or shut) right after its write: the bytes arrive, then the end; the channel
// is freed once they are sent.
TEST(UringSend, BytesWrittenBeforeCloseOrShutdownArriveThenTheEnd) {
  if (!UringPoller::receive_unavailable().empty()) GTEST_SKIP() << "no multishot receive";
  auto loop = uring_loop();
  for (const bool close : {true, false}) {
    SCOPED_TRACE(close ? "close" : "shutdown_write");
    ChannelPair pair;  // nothing is submitted before the close: every byte is unsent then
    auto writer = std::make_unique<Writer>(*loop, std::move(pair.ours));
    const std::string sent = pattern(100'000);
    std::size_t n = 0;
    ASSERT_EQ(writer->stream->write(sent.data(), sent.size(), n), IoStatus::Done);
    if (close) {
      writer.reset();
    } else {
      writer->stream->shutdown_write();
    }
    std::string received;
    bool open = true;
    ASSERT_TRUE(run_until(*loop,
                          [&] {
                            open = take_available(pair.peer.get(), received);
                            return !open;
                          }))
        << "no end after " << received.size() << " bytes";
    EXPECT_TRUE(received == sent) << "bytes lost or out of order";
    writer.reset();
    ASSERT_TRUE(run_until(*loop, [&] { return loop->live_channels() == 0; }));
  }
}

// Bytes written just before the loop ends (a server's last answers at stop()) still arrive, then
// the end: the poller sends them before it tears the ring down, whether nothing was submitted
// yet or a partial send is in flight with more behind it
// (ServerProtocol.StopFinishesInFlightRequests/uring lost them).
TEST(UringSend, BytesWrittenBeforeTheLoopEndsArrive) {
  if (!UringPoller::receive_unavailable().empty()) GTEST_SKIP() << "no multishot receive";
  for (const bool in_flight : {false, true}) {
    SCOPED_TRACE(in_flight ? "a partial send in flight" : "nothing submitted");
    auto loop = uring_loop();
    ChannelPair pair;
    if (in_flight) shrink_buffers(pair.ours.get(), pair.peer.get());  // a send cannot take all
    auto writer = std::make_unique<Writer>(*loop, std::move(pair.ours));
    const std::string sent = pattern(200'000);
    writer->data = sent;
    writer->push();
    ASSERT_EQ(writer->offset, sent.size());
    if (in_flight) {
      ASSERT_TRUE(run_until(
          *loop, [&] { return UringPollerProbe::partly_sent(*writer->stream->channel()) > 0; },
          kPeerReads));
    }
    // The peer reads on a thread of its own, as a client does while the server stops; a stall
    // ends its reads after 5 s.
    const timeval limit{5, 0};
    ASSERT_EQ(::setsockopt(pair.peer.get(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit), 0);
    std::string received;
    std::thread peer([&] {
      char buffer[8192];
      for (ssize_t r; (r = ::recv(pair.peer.get(), buffer, sizeof buffer, 0)) > 0;)
        received.append(buffer, static_cast<std::size_t>(r));
    });
    writer.reset();
    loop.reset();
    peer.join();
    EXPECT_EQ(received.size(), sent.size());
    EXPECT_TRUE(received == sent) << "bytes lost or out of order";
  }
}

// A peer that reads nothing holds the end of the loop for at most kFinalSendsNs: what fitted in
// the sockets is sent, the rest is dropped.
TEST(UringSend, EndOfLoopWaitsForAStalledPeerAtMostTheBound) {
  if (!UringPoller::receive_unavailable().empty()) GTEST_SKIP() << "no multishot receive";
  auto loop = uring_loop();
  ChannelPair pair;
  shrink_buffers(pair.ours.get(), pair.peer.get());
  auto writer = std::make_unique<Writer>(*loop, std::move(pair.ours));
  const std::string sent = pattern(UringChannel::kSendCap);
  writer->data = sent;
  writer->push();
  ASSERT_EQ(writer->offset, sent.size());
  writer.reset();
  const auto start = std::chrono::steady_clock::now();
  loop.reset();
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, std::chrono::nanoseconds(UringPoller::kFinalSendsNs) + 2s);
  std::string received;
  take_available(pair.peer.get(), received);
  EXPECT_GT(received.size(), 0u) << "nothing was sent before the ring went";
  EXPECT_LT(received.size(), sent.size());
  EXPECT_TRUE(received == sent.substr(0, received.size())) << "bytes out of order";
}

TEST(UringSend, FailedSendIsAnErrorForWriteAndRead) {
  if (!UringPoller::receive_unavailable().empty()) GTEST_SKIP() << "no multishot receive";
  auto loop = uring_loop();
  ChannelPair pair;
  Writer writer(*loop, std::move(pair.ours));
  linger abort{1, 0};  // the peer's close sends RST
  ASSERT_EQ(::setsockopt(pair.peer.get(), SOL_SOCKET, SO_LINGER, &abort, sizeof abort), 0);
  pair.peer = Fd();
  IoStatus status = IoStatus::Done;
  for (int i = 0; i < kMaxIterations && status == IoStatus::Done; ++i) {
    std::size_t n = 0;
    status = writer.stream->write("x", 1, n);
    loop->run_once(1'000'000);
  }
  EXPECT_EQ(status, IoStatus::Error);
  EXPECT_TRUE(writer.stream->error() == EPIPE || writer.stream->error() == ECONNRESET)
      << writer.stream->error();
  char buffer[16];
  std::size_t n = 0;
  EXPECT_EQ(writer.stream->read(buffer, sizeof buffer, n), IoStatus::Error);
}

// Buffers emptied by read() go back to the kernel together, in one advance of the ring's tail at
// the next wait, not one advance (a release store the kernel sees) per buffer.
TEST(UringSend, BuffersReadGoBackInOneAdvancePerWait) {
  if (!UringPoller::receive_unavailable().empty()) GTEST_SKIP() << "no multishot receive";
  BarePoller bare;
  ASSERT_NE(bare.channel, nullptr);
  ASSERT_TRUE(testing::send_all(bare.pair.peer.get(), pattern(100'000)));  // 16 KiB a buffer
  for (int i = 0; i < kMaxIterations && bare.channel->queued_buffers() < 4; ++i)
    bare.poller->wait(1'000'000);
  const std::size_t buffers = bare.channel->queued_buffers();
  ASSERT_GE(buffers, 4u);
  const unsigned tail = UringPollerProbe::ring_tail(*bare.poller);
  std::string out(1 << 20, '\0');
  std::size_t n = 0;
  ASSERT_EQ(bare.channel->read(out.data(), out.size(), n), IoStatus::Done);
  EXPECT_EQ(UringPollerProbe::ring_tail(*bare.poller), tail) << "a buffer went back on its own";
  EXPECT_EQ(UringPollerProbe::unpublished(*bare.poller), buffers);
  bare.poller->wait(0);
  EXPECT_EQ(static_cast<std::uint16_t>(UringPollerProbe::ring_tail(*bare.poller) - tail), buffers);
  EXPECT_EQ(UringPollerProbe::unpublished(*bare.poller), 0u);
  bare.poller->close_channel(bare.channel);
  for (int i = 0; i < kMaxIterations && bare.poller->live_channels() > 0; ++i)
    bare.poller->wait(1'000'000);
}

}  // namespace
}  // namespace stampede::net
