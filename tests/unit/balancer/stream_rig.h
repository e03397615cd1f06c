// A balancer Worker without sockets for the unit tests of ProxySession and H2Session: client
// connections and every backend connection are TestStreams (tests/support/test_stream.h),
// handed to a Worker that has no listener (Worker::adopt) and opens backends through
// StreamOpener. A test delivers readiness edges by calling a session's handlers, or through the
// worker's loop (TestStream::notify(), then loop().run_once(0)), which also fires what the loop
// defers to the end of an iteration (timers).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "balancer/backend.h"
#include "balancer/proxy_session.h"
#include "balancer/upstream_opener.h"
#include "balancer/worker.h"
#include "support/stream_connector.h"
#include "support/test_stream.h"

namespace stampede::balancer::rig {

// Hands out connectors over TestStreams, connected at once; `prepare` may plan faults on each
// before use.
class StreamOpener final : public UpstreamOpener {
 public:
  struct Opened {
    std::string backend;
    testing::TestStream* stream;
  };

  std::unique_ptr<net::Connector> connector(const BackendState& backend) override {
    auto stream = std::make_unique<testing::TestStream>();
    if (prepare) prepare(backend.name(), *stream);
    opened.push_back({backend.name(), stream.get()});
    return std::make_unique<testing::StreamConnector>(std::move(stream));
  }

  std::function<void(const std::string&, testing::TestStream&)> prepare;
  std::vector<Opened> opened;
};

// A worker over backends a, b... (round robin, no pooling, no listener).
class Rig {
 public:
  explicit Rig(std::size_t backends = 2) {
    config_.pool_max_idle = 0;
    for (std::size_t i = 0; i < backends; ++i) {
      BackendSpec spec{std::string(1, static_cast<char>('a' + i)), "127.0.0.1:1", 1};
      config_.backends.push_back(spec);
      states_.push_back(std::make_unique<BackendState>(i, spec, net::Address{}));
      state_ptrs_.push_back(states_.back().get());
    }
    WorkerParams params;
    params.config = &config_;
    params.states = state_ptrs_;
    params.opener = &opener;
    auto worker = Worker::create(std::move(params));
    EXPECT_TRUE(worker.ok());
    worker_ = std::move(*worker);
    worker_->loop().update_time();
  }

  // A new client connection; `client` is its stream (owned by the session).
  ProxySession& connect(testing::TestStream*& client) {
    auto stream = std::make_unique<testing::TestStream>();
    client = stream.get();
    ProxySession* session = worker_->adopt(std::move(stream), false);
    EXPECT_NE(session, nullptr);
    return *session;
  }

  BackendTotals totals(std::size_t backend) const {
    BackendTotals t;
    worker_->backends()[backend]->add_totals(t);
    return t;
  }
  bool live(std::size_t backend) const { return states_[backend]->live(worker_->loop().now_ns()); }
  net::EventLoop& loop() { return worker_->loop(); }

  StreamOpener opener;

 private:
  BalancerConfig config_;
  std::vector<std::unique_ptr<BackendState>> states_;
  std::vector<BackendState*> state_ptrs_;
  std::unique_ptr<Worker> worker_;
};

}  // namespace stampede::balancer::rig
