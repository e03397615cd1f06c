// UpstreamConn: one connection to a backend, over the stream of its own net::Connector (from the
// worker's UpstreamOpener), which registers the socket with the loop once, edge-triggered for
// IN|OUT|RDHUP, for its whole life (no epoll_ctl per request). It is either
// idle in its Backend's pool (no owner: any readable event means the backend closed it, and it
// is dropped) or lent to one ProxySession (the owner), which receives its events and reads and
// writes through stream().
#pragma once

#include <cstdint>
#include <memory>

#include "core/expected.h"
#include "net/connector.h"
#include "net/event_loop.h"
#include "net/stream.h"

namespace stampede::balancer {

class Backend;
class UpstreamOpener;

class UpstreamOwner {
 public:
  virtual void on_upstream_events(std::uint32_t events) = 0;

 protected:
  ~UpstreamOwner() = default;
};

class UpstreamConn final : public net::IoHandler {
 public:
  // Opens a connection to `backend` through a connector from `opener`. An Error means
  // the connect failed at once: nothing was sent. `local` then says whether the cause was this
  // process's own resources (out of descriptors, memory or local ports), which says nothing
  // about the backend; otherwise (refused, unreachable) the backend is to blame.
  static Expected<std::unique_ptr<UpstreamConn>> open(net::EventLoop& loop, Backend& backend,
                                                      UpstreamOpener& opener, bool& local);
  ~UpstreamConn();
  UpstreamConn(const UpstreamConn&) = delete;
  UpstreamConn& operator=(const UpstreamConn&) = delete;

  void on_events(std::uint32_t events) override;

  net::Stream& stream() { return *connector_->stream(); }
  Backend& backend() { return backend_; }
  // The TCP connect or the stream's handshake (TLS) is not finished: no request bytes yet.
  bool connecting() const { return connecting_; }
  // The TCP connect is still under way (events other than EPOLLOUT/ERR/HUP say nothing yet).
  bool tcp_connecting() const { return tcp_connecting_; }
  // Call on events while connecting(): Done once bytes can flow, WouldBlock while the
  // handshake waits for the backend, Error with `err` the connect errno or the stream's error.
  net::IoStatus advance_connect(int& err);
  // Whether this connection carried a request before the current one (a response came back
  // whole: closing it then keeps its TLS session for the backend's next connection).
  bool reused() const { return reused_; }
  void mark_used() { reused_ = true; }

  void set_owner(UpstreamOwner* owner) { owner_ = owner; }
  std::int64_t idle_since_ns() const { return idle_since_ns_; }
  void set_idle_since(std::int64_t ns) { idle_since_ns_ = ns; }

  // Closes the connector's socket (which leaves the loop) and ignores later events; the
  // object's destruction the caller defers (an event already collected by the loop may still
  // arrive).
  void detach();

 private:
  UpstreamConn(Backend& backend, std::unique_ptr<net::Connector> connector);

  Backend& backend_;
  std::unique_ptr<net::Connector> connector_;
  UpstreamOwner* owner_ = nullptr;
  std::int64_t idle_since_ns_ = 0;
  bool registered_ = false;
  bool tcp_connecting_ = true;
  bool connecting_ = true;
  bool reused_ = false;
};

}  // namespace stampede::balancer
