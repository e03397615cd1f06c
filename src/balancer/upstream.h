// UpstreamConn: one TCP connection to a backend. Registered with the loop once, edge-triggered
// for IN|OUT|RDHUP, for its whole life (no epoll_ctl per request). It is either idle in its
// Backend's pool (no owner: any readable event means the backend closed it, and it is dropped)
// or lent to one ProxySession (the owner), which receives its events.
#pragma once

#include <cstdint>
#include <memory>

#include "core/result.h"
#include "net/event_loop.h"
#include "net/fd.h"

namespace stampede::balancer {

class Backend;

class UpstreamOwner {
 public:
  virtual void on_upstream_events(std::uint32_t events) = 0;

 protected:
  ~UpstreamOwner() = default;
};

class UpstreamConn final : public net::IoHandler {
 public:
  // Starts a non-blocking connect to `backend` and registers with `loop`. An Error means the
  // connect failed at once: nothing was sent. `local` then says whether the cause was this
  // process's own resources (out of descriptors, memory or local ports), which says nothing
  // about the backend; otherwise (refused, unreachable) the backend is to blame.
  static Result<std::unique_ptr<UpstreamConn>> open(net::EventLoop& loop, Backend& backend,
                                                    bool& local);
  ~UpstreamConn();
  UpstreamConn(const UpstreamConn&) = delete;
  UpstreamConn& operator=(const UpstreamConn&) = delete;

  void on_events(std::uint32_t events) override;

  int fd() const { return fd_.get(); }
  Backend& backend() { return backend_; }
  bool connecting() const { return connecting_; }
  // Call on the first event while connecting(): 0 once connected, else the connect errno.
  int finish_connect();
  // Whether this connection carried a request before the current one.
  bool reused() const { return reused_; }
  void mark_used() { reused_ = true; }

  void set_owner(UpstreamOwner* owner) { owner_ = owner; }
  std::int64_t idle_since_ns() const { return idle_since_ns_; }
  void set_idle_since(std::int64_t ns) { idle_since_ns_ = ns; }

  // Deregisters and closes the socket now; the object may still receive (and ignores) an
  // event already collected by the loop, so its destruction is deferred by the caller.
  void detach();

 private:
  UpstreamConn(net::EventLoop& loop, Backend& backend, net::Fd fd);

  net::EventLoop& loop_;
  Backend& backend_;
  net::Fd fd_;
  UpstreamOwner* owner_ = nullptr;
  std::int64_t idle_since_ns_ = 0;
  bool connecting_ = true;
  bool reused_ = false;
};

}  // namespace stampede::balancer
