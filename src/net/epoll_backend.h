// EpollPoller: the epoll backend of the EventLoop (poller.h gives the contract). Each
// descriptor is registered once with epoll_ctl; wait() is one epoll_pwait2 (epoll_wait with
// millisecond rounding up on kernels without it) into a buffer that doubles when it fills.
#pragma once

#include <sys/epoll.h>

#include <memory>
#include <vector>

#include "net/fd.h"
#include "net/poller.h"

namespace stampede::net {

class EpollPoller final : public Poller {
 public:
  static Expected<std::unique_ptr<Poller>> create();

  Expected<void> add(int fd, std::uint32_t events, IoHandler* handler) override;
  Expected<void> modify(int fd, std::uint32_t events, IoHandler* handler) override;
  void remove(int fd) override;
  void forget(int) override {}  // the close removes the registration
  void wait(std::int64_t timeout_ns) override;
  void dispatch() override;

 private:
  explicit EpollPoller(Fd epoll) : epoll_(std::move(epoll)), events_(256) {}
  int wait_for(std::int64_t timeout_ns);

  Fd epoll_;
  std::vector<epoll_event> events_;
  int ready_ = 0;  // events_[0, ready_) came from the last wait()
  bool have_pwait2_ = true;
};

}  // namespace stampede::net
