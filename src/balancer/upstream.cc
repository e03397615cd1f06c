#include "balancer/upstream.h"

#include <sys/epoll.h>

#include "balancer/backend.h"
#include "balancer/upstream_opener.h"
#include "net/socket.h"

namespace stampede::balancer {

Expected<std::unique_ptr<UpstreamConn>> UpstreamConn::open(net::EventLoop& loop, Backend& backend,
                                                           UpstreamOpener& opener, bool& local) {
  auto opened = opener.open(backend.state(), local);
  if (!opened) return opened.error();
  std::unique_ptr<UpstreamConn> conn(
      new UpstreamConn(loop, backend, std::move(opened->stream), opened->connecting));
  auto added = loop.add(conn->stream_->fd(), EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, conn.get());
  if (!added) {
    local = true;  // epoll_ctl: out of memory or over max_user_watches
    return added.error();
  }
  conn->registered_ = true;
  return conn;
}

UpstreamConn::UpstreamConn(net::EventLoop& loop, Backend& backend,
                           std::unique_ptr<net::Stream> stream, bool connecting)
    : loop_(loop),
      backend_(backend),
      stream_(std::move(stream)),
      tcp_connecting_(connecting),
      connecting_(true) {}

UpstreamConn::~UpstreamConn() {
  detach();
}

void UpstreamConn::detach() {
  if (registered_) {
    loop_.remove(stream_->fd());
    registered_ = false;
  }
  owner_ = nullptr;
}

net::IoStatus UpstreamConn::advance_connect(int& err) {
  if (tcp_connecting_) {
    err = net::connect_result(stream_->fd());
    if (err != 0) return net::IoStatus::Error;
    tcp_connecting_ = false;
  }
  const net::IoStatus status = stream_->handshake();
  if (status == net::IoStatus::Done) connecting_ = false;
  if (status == net::IoStatus::Error) err = stream_->error();
  return status;
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
