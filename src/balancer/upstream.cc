#include "balancer/upstream.h"

#include <errno.h>
#include <sys/epoll.h>

#include "balancer/backend.h"
#include "balancer/upstream_opener.h"
#include "net/socket.h"

namespace stampede::balancer {

Expected<std::unique_ptr<UpstreamConn>> UpstreamConn::open(net::EventLoop& loop, Backend& backend,
                                                           UpstreamOpener& opener, bool& local) {
  std::unique_ptr<UpstreamConn> conn(new UpstreamConn(backend, opener.connector(backend.state())));
  bool connected = false;
  const int err = conn->connector_->open(loop, *conn, loop.now_ns(), connected);
  if (err != 0) {
    // socket(), connect() or epoll_ctl(): refused or unreachable is the backend's fault; out of
    // descriptors, memory, local ports or epoll watches is ours.
    local = net::is_local_resource_error(err) || err == ENOSPC;
    return make_error(net::errno_name(err));
  }
  conn->registered_ = true;
  conn->tcp_connecting_ = !connected;
  return conn;
}

UpstreamConn::UpstreamConn(Backend& backend, std::unique_ptr<net::Connector> connector)
    : backend_(backend), connector_(std::move(connector)) {}

UpstreamConn::~UpstreamConn() {
  detach();
}

void UpstreamConn::detach() {
  if (registered_) {
    connector_->close(reused_);
    registered_ = false;
  }
  owner_ = nullptr;
}

net::IoStatus UpstreamConn::advance_connect(int& err) {
  if (tcp_connecting_) {
    err = connector_->connect_result();
    if (err != 0) return net::IoStatus::Error;
    tcp_connecting_ = false;
  }
  if (connector_->has_handshake()) {
    const net::IoStatus status = connector_->handshake();
    if (status == net::IoStatus::Error) err = connector_->error();
    if (status != net::IoStatus::Done) return status;
  }
  connecting_ = false;
  return net::IoStatus::Done;
}

void UpstreamConn::on_events(std::uint32_t events) {
  if (!registered_) return;  // detached: a stale event from the batch being dispatched
  if (owner_) {
    owner_->on_upstream_events(events);
    return;
  }
  // Idle in the pool: write readiness is expected; anything else means the backend closed the
  // connection (or sent bytes nobody asked for). Dropping it destroys this object, which the
  // loop allows from inside its own on_events().
  if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
    auto self = backend_.forget_idle(this);
  }
}

}  // namespace stampede::balancer
