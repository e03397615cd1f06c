// What the io_uring channel tests share (uring_channel_test.cc: receiving, uring_send_test.cc:
// sending): a probe into the poller's state, a connected loopback pair, a bare poller with a
// channel on one, a reading handler, a bounded loop runner and a byte pattern in which a byte out
// of place shows.
#pragma once

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
  // Bytes of the send in flight that the kernel has taken already (a partial send).
  static std::size_t partly_sent(const UringChannel& channel) { return channel.sent_; }
  // The tail of the loop's provided-buffer ring (where the kernel finds buffers given back).
  static unsigned ring_tail(const UringPoller& poller) { return poller.buffers_->ring_->tail; }
  static unsigned unpublished(const UringPoller& poller) { return poller.buffers_->unpublished(); }
};

namespace uring_test {

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

// A bare UringPoller (no EventLoop around it) with a channel open on a connected pair's `ours`,
// for tests that hand the poller completions (UringPollerProbe) or wait on it themselves. The
// pair's sockets close before the poller goes. `channel` is null, and the test has failed, when
// the poller or the channel could not be made.
struct BarePoller {
  BarePoller() {
    auto created = UringPoller::create();
    EXPECT_TRUE(created.ok());
    if (!created.ok()) return;
    owner = std::move(created.value());
    poller = static_cast<UringPoller*>(owner.get());
    channel = poller->open_channel(pair.ours.get());
    EXPECT_NE(channel, nullptr);
  }
  std::unique_ptr<Poller> owner;
  UringPoller* poller = nullptr;
  ChannelPair pair;
  UringChannel* channel = nullptr;
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

inline std::unique_ptr<EventLoop> uring_loop() {
  auto loop = EventLoop::create(IoBackend::Uring);
  EXPECT_TRUE(loop.ok());
  return loop ? std::move(loop.value()) : nullptr;
}

// Runs `loop` until `done()` or kMaxIterations waits of at most `wait_ns` (10 ms) each.
inline bool run_until(EventLoop& loop, const std::function<bool()>& done,
                      std::int64_t wait_ns = 10'000'000) {
  for (int i = 0; i < kMaxIterations && !done(); ++i)
    loop.run_once(wait_ns);
  return done();
}

// The bytes at [from, from + size) of one endless pattern (a byte out of place shows).
inline std::string pattern(std::size_t size, std::size_t from = 0) {
  std::string s(size, '\0');
  for (std::size_t i = from; i < from + size; ++i)
    s[i - from] = static_cast<char>('a' + (i * 7 + i / 251) % 26);
  return s;
}

// Sends the pattern from `peer` (made non-blocking) while `loop` runs, until `reader` holds its
// cap and the peer's socket is full (or stays full for 20 waits in a row; at most 32 MiB, 20000
// sends). Returns what was sent.
inline std::string flood(EventLoop& loop, int peer, const Reader& reader) {
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

}  // namespace uring_test
}  // namespace stampede::net
