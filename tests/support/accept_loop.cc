#include "support/accept_loop.h"

#include <sys/socket.h>

#include <cerrno>

namespace stampede::testing {

AcceptLoop::AcceptLoop(Serve serve, Threads threads, int backlog)
    : serve_(std::move(serve)), threads_(threads), listener_(listen_loopback(backlog)) {
  acceptor_ = std::thread([this] { run(); });
}

AcceptLoop::~AcceptLoop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    if (serving_ >= 0) ::shutdown(serving_, SHUT_RDWR);
    for (const net::Fd& fd : open_)
      ::shutdown(fd.get(), SHUT_RDWR);
  }
  ::shutdown(listener_.fd.get(), SHUT_RDWR);  // accept() returns
  acceptor_.join();
  for (std::thread& t : connection_threads_)
    t.join();
}

void AcceptLoop::run() {
  for (;;) {
    net::Fd fd(::accept4(listener_.fd.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!fd) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // shut down
    }
    ++accepted_;
    std::unique_lock lock(mutex_);
    if (stopping_) return;
    const int raw = fd.get();
    if (threads_ == Threads::PerConnection) {
      open_.push_back(std::move(fd));
      connection_threads_.emplace_back([this, raw] { serve_(raw); });
      continue;
    }
    serving_ = raw;
    lock.unlock();
    serve_(raw);
    lock.lock();
    serving_ = -1;
  }
}

}  // namespace stampede::testing
