// InMemoryGeneratorRun: the generator's client side (loadgen::Connection: its state machine, its
// ResponseParser, its accounting in WorkerStats) over in-memory streams (fake_connector.h,
// test_stream.h), a worker's part driven by hand: no socket, no thread, no clock wait. Every
// connection the generator opens is answered with the same `reply`, then EOF when `eof` (the
// server closes after it, as ScriptedReply::close_after) or nothing more (the connection stays
// open). Reads hand out at most `read_size` bytes each (1: byte at a time, what a server that
// sends one byte per send() gives a reader that keeps up, without a context switch per byte).
//
// Readiness edges are delivered in rounds, every unfinished connection once a round (while it has
// bytes to read or a FIN to see), bounded;
// when a round moves nothing, the earliest timer (a backoff, the close grace, a request's
// timeout) fires at once (EventLoop::expire_next_timer), as if its time had come: a timeout that
// fires counts ETIMEDOUT, which the caller's check of the stats sees. The FIN is reported
// (EPOLLRDHUP) with the first bytes when `early_fin`, else once every byte was read.
//
// Permits: `requests` in all, each due at once, handed to whichever connection asks. The
// tests/fuzz/generator_response target and tests/integration/loadgen/vectors_test.cc use it.
// Not thread-safe; one run per object. Header-only: it needs stampede_loadgen, which only the
// binaries that include it link.
#pragma once

#include <sys/epoll.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/writer.h"

#include "loadgen/connection.h"
#include "loadgen/request.h"
#include "loadgen/worker_stats.h"
#include "net/event_loop.h"
#include "support/fake_connector.h"

namespace stampede::testing {

struct InMemoryRunParams {
  static constexpr std::size_t kWhole = static_cast<std::size_t>(-1);

  std::string_view reply;  // must outlive the run
  bool eof = true;
  bool keep_alive = false;
  bool head = false;  // HEAD requests instead of GET (responses have no body)
  std::size_t clients = 1;
  std::uint64_t requests = 3;
  std::int64_t timeout_ns = 300'000'000;  // per request
  std::size_t read_size = kWhole;         // at most this many bytes per read
  bool early_fin = false;
};

class InMemoryGeneratorRun final : public loadgen::ConnectionOwner {
 public:
  // Throws std::runtime_error when no event loop can be made.
  explicit InMemoryGeneratorRun(const InMemoryRunParams& params)
      : params_(params), read_buffer_(kReadBufferBytes) {
    auto loop = net::EventLoop::create(net::IoBackend::Epoll);
    if (!loop) throw std::runtime_error("event loop: " + loop.error().message);
    loop_ = std::move(loop).value();
    http::RequestSpec spec;
    spec.method = params.head ? "HEAD" : "GET";
    spec.host = "127.0.0.1:8080";
    spec.keep_alive = params.keep_alive;
    request_ = loadgen::RequestTemplate::build(spec, "");
    context_.loop = loop_.get();
    context_.owner = this;
    context_.stats = &stats_;
    context_.request = &request_;
    context_.read_buffer = read_buffer_;
    context_.keep_alive = params.keep_alive;
    context_.head_request = params.head;
    context_.timeout_ns = params.timeout_ns;
    shared_.prepare = [this](TestStream& stream) {
      stream.feed(params_.reply);
      if (params_.eof) stream.feed_eof();
      stream.set_read_limit(params_.read_size);
    };
  }
  ~InMemoryGeneratorRun() = default;
  InMemoryGeneratorRun(const InMemoryGeneratorRun&) = delete;
  InMemoryGeneratorRun& operator=(const InMemoryGeneratorRun&) = delete;

  // Runs until every connection finished; false when the rounds ran out first, or a round moved
  // nothing with no timer left to fire.
  bool run() {
    for (std::size_t i = 0; i < params_.clients; ++i) {
      auto connector = std::make_unique<FakeConnector>(shared_);
      connectors_.push_back(connector.get());
      connections_.push_back(std::make_unique<loadgen::Connection>(context_, std::move(connector)));
    }
    for (auto& connection : connections_)
      connection->start();
    // A read of one byte per round and connection, over a few connections, plus the timers.
    const std::size_t max_rounds = 16 * (params_.reply.size() + 16);
    for (std::size_t round = 0; round < max_rounds; ++round) {
      if (finished_ == connections_.size()) return true;
      const std::size_t before = progress();
      for (std::size_t i = 0; i < connections_.size(); ++i) {
        const std::uint32_t ready = events(*connectors_[i]);
        if (!connections_[i]->finished() && ready != 0) connections_[i]->on_events(ready);
      }
      if (progress() == before && !loop_->expire_next_timer()) return false;
    }
    return finished_ == connections_.size();
  }

  const loadgen::WorkerStats& stats() const { return stats_; }
  // Every stream the connections opened, in order: what each was written (the requests).
  const FakeConnector::Shared& streams() const { return shared_; }
  // A permit due at once was held (ConnectionOwner::hold): never expected, as every permit is due.
  bool held_a_permit() const { return held_; }

  loadgen::SendPermit next_send(std::int64_t) override {
    if (given_ == params_.requests) return {};
    return loadgen::SendPermit{true, 0, ++given_};
  }
  void hold(loadgen::Connection&, std::int64_t) override { held_ = true; }
  void on_finished() override { ++finished_; }
  void stop_run() override {}

 private:
  static constexpr std::size_t kReadBufferBytes = 64 * 1024;  // the worker's (loadgen/worker.cc)

  // What a socket would report now: readable and writable (the bytes, and the FIN when `eof`,
  // are there from the start), the FIN with them or once they are read; nothing (0: no edge, as
  // edge-triggered epoll gives none) once the bytes are read and no FIN follows.
  std::uint32_t events(FakeConnector& connector) const {
    std::uint32_t events = EPOLLIN | EPOLLOUT;
    const auto* stream = static_cast<const TestStream*>(connector.stream());
    if (!params_.eof && stream != nullptr && stream->unread() == 0) return 0;
    if (params_.eof && (params_.early_fin || (stream != nullptr && stream->unread() == 0))) {
      events |= EPOLLRDHUP;
    }
    return events;
  }
  // Changes whenever a connection did anything: a stream operation, a new stream, a record.
  std::size_t progress() const {
    std::size_t sum = shared_.streams.size() + stats_.requests();
    for (const auto& stream : shared_.streams)
      sum += stream->operations();
    return sum;
  }

  InMemoryRunParams params_;
  std::unique_ptr<net::EventLoop> loop_;
  loadgen::RequestTemplate request_;
  std::vector<char> read_buffer_;
  loadgen::WorkerStats stats_;
  loadgen::ConnectionContext context_;
  FakeConnector::Shared shared_;
  std::vector<FakeConnector*> connectors_;  // each owned by its connection
  std::vector<std::unique_ptr<loadgen::Connection>> connections_;
  std::uint64_t given_ = 0;
  std::size_t finished_ = 0;
  bool held_ = false;
};

}  // namespace stampede::testing
