// AcceptLoop: a peer played by hand on a thread of its own (a backend that misbehaves, a server
// that records what it got). It listens on 127.0.0.1, port 0 (listen_loopback), accepts until it
// is destroyed and hands each connection to `serve`: on the accept thread, one connection after
// another (Threads::One), or on a thread of its own (Threads::PerConnection).
//
// The loop owns every accepted descriptor (blocking, CLOEXEC): `serve` reads and writes it and
// returns; it is closed when `serve` returns (One) or when the loop is destroyed
// (PerConnection). One allocates nothing per connection (tests that count allocations use it). The
// destructor shuts the listener and every open connection down, so a blocked accept() or recv()
// returns, and joins every thread: `serve` must return once a read fails. `serve` runs on the
// loop's threads, concurrently with the test (PerConnection: with itself too); what it shares with
// the test needs a lock or an atomic.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "net/fd.h"
#include "support/loopback.h"

namespace stampede::testing {

class AcceptLoop {
 public:
  enum class Threads { One, PerConnection };
  using Serve = std::function<void(int fd)>;

  explicit AcceptLoop(Serve serve, Threads threads = Threads::One, int backlog = 64);
  ~AcceptLoop();
  AcceptLoop(const AcceptLoop&) = delete;
  AcceptLoop& operator=(const AcceptLoop&) = delete;

  std::uint16_t port() const { return listener_.port; }
  // Connections accepted so far.
  int accepted() const { return accepted_.load(); }

 private:
  void run();

  Serve serve_;
  Threads threads_;
  LoopbackListener listener_;
  std::atomic<int> accepted_{0};
  std::mutex mutex_;
  bool stopping_ = false;      // under mutex_: accepted from now on is closed, not served
  int serving_ = -1;           // under mutex_: One: the connection `serve` has now
  std::vector<net::Fd> open_;  // under mutex_: PerConnection: every accepted connection
  std::vector<std::thread> connection_threads_;  // PerConnection, joined by the destructor
  std::thread acceptor_;
};

}  // namespace stampede::testing
