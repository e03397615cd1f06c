#include "net/epoll_backend.h"

#include <errno.h>
#include <time.h>

#include <cstring>
#include <string>

#include "net/event_loop.h"

namespace stampede::net {
namespace {

// One epoll_ctl that registers (EPOLL_CTL_ADD) or changes (EPOLL_CTL_MOD) `fd`'s events and
// handler; `what` names the operation in the error.
Expected<void> control(int epoll_fd, int op, const char* what, int fd, std::uint32_t events,
                       IoHandler* handler) {
  epoll_event ev{};
  ev.events = events;
  ev.data.ptr = handler;
  if (epoll_ctl(epoll_fd, op, fd, &ev) != 0) {
    return make_error(std::string("epoll_ctl ") + what + ": " + std::strerror(errno));
  }
  return {};
}

}  // namespace

Expected<std::unique_ptr<Poller>> EpollPoller::create() {
  Fd ep(epoll_create1(EPOLL_CLOEXEC));
  if (!ep) return make_error(std::string("epoll_create1: ") + std::strerror(errno));
  return std::unique_ptr<Poller>(new EpollPoller(std::move(ep)));
}

Expected<void> EpollPoller::add(int fd, std::uint32_t events, IoHandler* handler) {
  return control(epoll_.get(), EPOLL_CTL_ADD, "add", fd, events, handler);
}

Expected<void> EpollPoller::modify(int fd, std::uint32_t events, IoHandler* handler) {
  return control(epoll_.get(), EPOLL_CTL_MOD, "mod", fd, events, handler);
}

void EpollPoller::remove(int fd) {
  epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, fd, nullptr);
}

int EpollPoller::wait_for(std::int64_t timeout_ns) {
  if (have_pwait2_) {
    timespec ts{static_cast<time_t>(timeout_ns / 1'000'000'000),
                static_cast<long>(timeout_ns % 1'000'000'000)};
    int n = epoll_pwait2(epoll_.get(), events_.data(), static_cast<int>(events_.size()),
                         timeout_ns < 0 ? nullptr : &ts, nullptr);
    if (n >= 0 || errno != ENOSYS) return n;
    have_pwait2_ = false;
  }
  int ms = timeout_ns < 0 ? -1 : static_cast<int>((timeout_ns + 999'999) / 1'000'000);
  return epoll_wait(epoll_.get(), events_.data(), static_cast<int>(events_.size()), ms);
}

void EpollPoller::wait(std::int64_t timeout_ns) {
  ready_ = wait_for(timeout_ns);
  if (ready_ < 0) ready_ = 0;  // EINTR: the loop goes round again
}

void EpollPoller::dispatch() {
  for (int i = 0; i < ready_; ++i) {
    static_cast<IoHandler*>(events_[i].data.ptr)->on_events(events_[i].events);
  }
  if (ready_ == static_cast<int>(events_.size())) events_.resize(events_.size() * 2);
  ready_ = 0;
}

}  // namespace stampede::net
