#include "balancer/upstream.h"

#include <errno.h>
#include <sys/epoll.h>

#include "balancer/backend.h"
#include "net/socket.h"

namespace stampede::balancer {

Result<std::unique_ptr<UpstreamConn>> UpstreamConn::open(net::EventLoop& loop, Backend& backend,
                                                         bool& local) {
  auto fd = net::connect_tcp(backend.state().address());
  if (!fd) {
    local = net::is_local_resource_error(errno);
    return fd.error();
  }
  std::unique_ptr<UpstreamConn> conn(new UpstreamConn(loop, backend, std::move(*fd)));
  auto added = loop.add(conn->fd(), EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, conn.get());
  if (!added) {
    local = true;  // epoll_ctl: out of memory or over max_user_watches
    return added.error();
  }
  return conn;
}

UpstreamConn::UpstreamConn(net::EventLoop& loop, Backend& backend, net::Fd fd)
    : loop_(loop), backend_(backend), fd_(std::move(fd)) {}

UpstreamConn::~UpstreamConn() {
  detach();
}

void UpstreamConn::detach() {
  if (fd_) {
    loop_.remove(fd_.get());
    fd_.reset();
  }
  owner_ = nullptr;
}

int UpstreamConn::finish_connect() {
  int err = net::connect_result(fd_.get());
  if (err == 0) connecting_ = false;
  return err;
}

void UpstreamConn::on_events(std::uint32_t events) {
  if (!fd_) return;  // detached: a stale event from the batch being dispatched
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
