// StreamConnector: a net::Connector over one in-memory stream the test made (a TestStream,
// prepared: bytes to feed, faults to plan; or a wrapper around one), for openers that hand a
// client in-memory streams, such as the balancer's UpstreamOpener in its unit tests and fuzz
// target. open() registers the stream's descriptor (a TestStream's eventfd) with the loop (as
// TcpConnector registers its socket) and is connected at once; the handshake is the stream's
// own handshake(), so a fault planned at operation 1 hits it. The connector owns the stream; the
// test keeps a pointer to inspect it until the connector goes.
#pragma once

#include <sys/epoll.h>

#include <cerrno>
#include <memory>
#include <utility>

#include "support/connected_at_once.h"
#include "support/test_stream.h"

namespace stampede::testing {

class StreamConnector final : public ConnectedAtOnce {
 public:
  explicit StreamConnector(std::unique_ptr<net::Stream> stream) : stream_(std::move(stream)) {}
  ~StreamConnector() override { close(false); }

  int open(net::EventLoop& loop, net::IoHandler& handler, std::int64_t start_ns,
           bool& connected) override {
    if (!loop.add(stream_->fd(), EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, &handler)) {
      return errno;
    }
    loop_ = &loop;
    return connected_now(start_ns, connected);
  }
  bool has_handshake() const override { return true; }
  net::IoStatus handshake() override { return stream_->handshake(); }
  int error() const override { return stream_->error(); }
  net::Stream* stream() override { return stream_.get(); }
  void close(bool) override {
    if (loop_ != nullptr) loop_->remove(stream_->fd());
    loop_ = nullptr;
  }

 private:
  std::unique_ptr<net::Stream> stream_;
  net::EventLoop* loop_ = nullptr;
};

}  // namespace stampede::testing
