// FakeConnector: a net::Connector whose sockets are TestStreams, so the generator's Connection
// and WsClient run in a unit test without sockets: every open() makes a new stream, prepared by
// the test's callback (bytes to feed, faults to plan), connected at once. Nothing is registered
// with the loop: the test delivers the readiness events by calling the client's on_events().
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "support/connected_at_once.h"
#include "support/test_stream.h"

namespace stampede::testing {

class FakeConnector final : public ConnectedAtOnce {
 public:
  // Every stream the connector made, the closed ones too (in order), for the test to inspect.
  struct Shared {
    std::vector<std::unique_ptr<TestStream>> streams;
    std::function<void(TestStream&)> prepare;  // called on each new stream
    std::size_t clean_closes = 0;
    std::size_t closes = 0;
  };

  explicit FakeConnector(Shared& shared) : shared_(shared) {}

  int open(net::EventLoop&, net::IoHandler&, std::int64_t start_ns, bool& connected) override {
    shared_.streams.push_back(std::make_unique<TestStream>());
    current_ = shared_.streams.back().get();
    if (shared_.prepare) shared_.prepare(*current_);
    return connected_now(start_ns, connected);
  }
  bool has_handshake() const override { return false; }
  net::IoStatus handshake() override { return net::IoStatus::Done; }
  int error() const override { return 0; }
  net::Stream* stream() override { return current_; }
  void close(bool clean) override {
    ++shared_.closes;
    if (clean) ++shared_.clean_closes;
    current_ = nullptr;
  }

 private:
  Shared& shared_;
  TestStream* current_ = nullptr;
};

}  // namespace stampede::testing
