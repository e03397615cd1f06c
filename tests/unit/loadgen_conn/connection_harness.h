// ConnectionHarness: the fixture the generator's Connection tests over a TestStream share, over
// OwnerHarness, which the WebSocket client's tests use too. The test is the connection's owner: it
// hands out `permits` requests, all due at once (a hold is a test failure), counts finished
// connections, and opens each socket as a TestStream of `shared_` (FakeConnector). One thread, no
// socket.
#pragma once

#include <errno.h>
#include <gtest/gtest.h>
#include <sys/epoll.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "http/writer.h"
#include "loadgen/connection.h"
#include "loadgen/request.h"
#include "loadgen/worker_stats.h"
#include "net/event_loop.h"
#include "support/fake_connector.h"
#include "support/test_stream.h"

namespace stampede::loadgen {

// The owner side every client fixture over a TestStream shares: the loop, the stats, the read
// buffer and the context over them, the permits handed out and the finished connections, and the
// streams FakeConnector opened (`shared_`).
class OwnerHarness : public ::testing::Test, public ConnectionOwner {
 protected:
  OwnerHarness() : loop_(std::move(net::EventLoop::create()).value()), buffer_(16 * 1024) {
    context_.loop = loop_.get();
    context_.owner = this;
    context_.stats = &stats_;
    context_.read_buffer = buffer_;
  }

  SendPermit next_send(std::int64_t) override {
    if (permits_ == 0) return {};
    --permits_;
    return SendPermit{true, 0, ++given_};
  }
  void hold(Connection&, std::int64_t) override { ADD_FAILURE() << "permits are due at once"; }
  void on_finished() override { ++finished_; }
  void stop_run() override {}

  // For shared_.prepare: the first write takes 10 bytes, the next operation would block.
  static void short_write_then_would_block(testing::TestStream& s) {
    s.fail_at(1, testing::TestStream::Fault::Short, 10);
    s.fail_at(2, testing::TestStream::Fault::WouldBlock);
  }

  // One request, failed with `err` and counted as one error.
  void expect_one_failure(int err) {
    EXPECT_EQ(stats_.requests(), 1u);
    EXPECT_EQ(stats_.failure_count(err), 1u);
    EXPECT_EQ(stats_.errors(), 1u);
  }

  // A peer that closes before sending a byte: the client `start` returns (the fixture's, with
  // one permit) counts one ECONNRESET and has read nothing.
  template <typename Start>
  void expect_eof_first_is_a_reset(Start start) {
    shared_.prepare = [](testing::TestStream& s) { s.feed_eof(); };
    auto client = start();
    client->on_events(EPOLLIN | EPOLLRDHUP);
    expect_one_failure(ECONNRESET);
    EXPECT_EQ(stats_.bytes_read(), 0u);
  }

  // The stream of the latest connection.
  testing::TestStream& stream() { return *shared_.streams.back(); }

  std::unique_ptr<net::EventLoop> loop_;
  std::vector<char> buffer_;
  WorkerStats stats_;
  ConnectionContext context_;
  testing::FakeConnector::Shared shared_;
  std::uint64_t permits_ = 0;
  std::uint64_t given_ = 0;
  int finished_ = 0;
};

// The HTTP/1.1 Connection's: requests for "target", kept alive.
class ConnectionHarness : public OwnerHarness {
 protected:
  ConnectionHarness() : request_(RequestTemplate::build(spec(), "")) {
    context_.request = &request_;
    context_.keep_alive = true;
  }

  static http::RequestSpec spec() {
    http::RequestSpec s;
    s.host = "target";
    return s;
  }

  // A started connection that may send `permits` requests.
  std::unique_ptr<Connection> start(std::uint64_t permits) {
    permits_ = permits;
    auto connection =
        std::make_unique<Connection>(context_, std::make_unique<testing::FakeConnector>(shared_));
    connection->start();
    return connection;
  }

  RequestTemplate request_;
};

}  // namespace stampede::loadgen
