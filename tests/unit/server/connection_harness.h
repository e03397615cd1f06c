// A server Worker without a listener, serving in-memory TestStreams, for the connection unit
// tests (connection_test.cc, ws_connection_test.cc): no socket, no thread, no peer. The test
// feeds the client's bytes, delivers the readiness edges itself (on_events), runs the loop only
// for timers, and reads back what the connection wrote and what the worker counted.
#pragma once

#include <gtest/gtest.h>
#include <sys/epoll.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "server/connection.h"
#include "server/shared.h"
#include "server/worker.h"
#include "support/server_totals.h"
#include "support/test_stream.h"

namespace stampede::server {

// Lends a TestStream to a connection: the connection owns (and drops at its close) what it is
// given, while the test keeps the TestStream to read what was written after the close. Notes
// the drop in `*dropped`.
class LentStream final : public net::Stream {
 public:
  LentStream(testing::TestStream& stream, bool* dropped) : stream_(stream), dropped_(dropped) {}
  ~LentStream() override { *dropped_ = true; }

  int fd() const override { return stream_.fd(); }
  net::IoStatus handshake() override { return stream_.handshake(); }
  net::IoStatus read(char* buffer, std::size_t capacity, std::size_t& n) override {
    return stream_.read(buffer, capacity, n);
  }
  net::IoStatus write(const char* data, std::size_t length, std::size_t& n) override {
    return stream_.write(data, length, n);
  }
  net::IoStatus writev(const iovec* parts, int count, std::size_t& n) override {
    return stream_.writev(parts, count, n);
  }
  void shutdown_write() override { stream_.shutdown_write(); }
  bool wants_write() const override { return stream_.wants_write(); }
  int error() const override { return stream_.error(); }

 private:
  testing::TestStream& stream_;
  bool* dropped_;
};

class WorkerHarness : public ::testing::Test {
 protected:
  using Fault = testing::TestStream::Fault;
  static constexpr std::uint32_t kIn = EPOLLIN;
  static constexpr std::uint32_t kOut = EPOLLOUT;
  static constexpr std::uint32_t kHangUp = EPOLLIN | EPOLLRDHUP;
  // What epoll reports for a connection reset by the peer.
  static constexpr std::uint32_t kReset = EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR;

  void SetUp() override { make_worker(ServerOptions{}); }

  void make_worker(const ServerOptions& options) {
    worker_.reset();
    shared_ = std::make_unique<Shared>(options, Content{"OK", "text/plain"}, 1);
    auto worker = Worker::create(*shared_, 0, net::Fd());
    ASSERT_TRUE(worker);
    worker_ = std::move(worker).value();
  }

  // Starts a connection on a fresh TestStream (the previous one is dropped: close its
  // connection first).
  Connection& open() {
    stream_ = std::make_unique<testing::TestStream>();
    dropped_ = false;
    Connection* c = worker_->adopt(std::make_unique<LentStream>(*stream_, &dropped_));
    EXPECT_NE(c, nullptr);
    connection_ = c;
    return *c;
  }
  // The client's bytes arrive, with their readiness edge.
  void deliver(std::string_view bytes) {
    stream_->feed(bytes);
    connection_->on_events(kIn);
  }
  void events(std::uint32_t events) { connection_->on_events(events); }
  // The client ends its stream (FIN); the connection sees it.
  void hang_up() {
    stream_->feed_eof();
    connection_->on_events(kHangUp);
  }
  // The connection closed: its stream was dropped and the worker holds no connection.
  bool closed() const { return dropped_ && worker_->live_connections() == 0; }
  // Runs the worker's loop (timers) until `done` or 3 s, whichever first.
  template <class Done>
  void run_loop_until(Done done) {
    const std::int64_t give_up = mono_ns() + 3'000'000'000;
    while (!done() && mono_ns() < give_up)
      worker_->loop().run_once(5'000'000);
  }
  // Runs the worker's loop for `ms` milliseconds.
  void run_loop_for(int ms) {
    const std::int64_t until = mono_ns() + std::int64_t{ms} * 1'000'000;
    run_loop_until([&] { return mono_ns() >= until; });
  }

  std::uint64_t requests() const { return shared_->counters[0].requests.load(); }
  std::uint64_t errors() const { return shared_->counters[0].errors.load(); }
  std::uint64_t bad_requests() const { return shared_->counters[0].bad_requests.load(); }
  std::uint64_t connections() const { return shared_->counters[0].connections.load(); }
  std::uint64_t served() const { return shared_->served(); }
  // The counters above that a test names, checked in one assertion (nullopt: not looked at).
  struct Counts {
    std::optional<std::uint64_t> requests{}, errors{}, bad_requests{}, served{};
  };
  ::testing::AssertionResult counts_are(const Counts& want) const {
    return testing::counters_are({{"requests", requests(), want.requests},
                                  {"errors", errors(), want.errors},
                                  {"bad_requests", bad_requests(), want.bad_requests},
                                  {"served", served(), want.served}});
  }

  // Declared so that the worker (and any connection still open in it) goes first.
  std::unique_ptr<Shared> shared_;
  std::unique_ptr<testing::TestStream> stream_;
  bool dropped_ = false;
  std::unique_ptr<Worker> worker_;
  Connection* connection_ = nullptr;
};

}  // namespace stampede::server
