#include "lab/interrupt.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

namespace stampede::lab {

void Interrupt::trigger() {
  std::lock_guard lock(mutex_);
  requested_ = true;
  for (loadgen::StopSignal* stop : stops_)
    stop->request_stop();
}

bool Interrupt::requested() const {
  std::lock_guard lock(mutex_);
  return requested_;
}

void Interrupt::attach(loadgen::StopSignal& stop) {
  std::lock_guard lock(mutex_);
  stops_.push_back(&stop);
  if (requested_) stop.request_stop();
}

void Interrupt::detach(loadgen::StopSignal& stop) {
  std::lock_guard lock(mutex_);
  stops_.erase(std::remove(stops_.begin(), stops_.end(), &stop), stops_.end());
}

SignalWatcher::SignalWatcher(Interrupt& interrupt, const sigset_t& previous)
    : interrupt_(interrupt), previous_(previous) {}

Expected<std::unique_ptr<SignalWatcher>> SignalWatcher::start(Interrupt& interrupt) {
  sigset_t set, previous;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, &previous);
  std::unique_ptr<SignalWatcher> watcher(new SignalWatcher(interrupt, previous));
  // A write to a closed pipe fails (EPIPE) instead of killing the lab before it unwinds.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &watcher->previous_pipe_);
  watcher->signal_fd_.reset(signalfd(-1, &set, SFD_CLOEXEC));
  watcher->wake_fd_.reset(eventfd(0, EFD_CLOEXEC));
  if (!watcher->signal_fd_ || !watcher->wake_fd_) {
    return make_error(std::string("cannot watch signals: ") + std::strerror(errno));
  }
  try {
    watcher->thread_ = std::thread([w = watcher.get()] { w->watch(); });
  } catch (const std::system_error& e) {
    return make_error(std::string("cannot start the signal thread: ") + e.what());
  }
  return watcher;
}

SignalWatcher::~SignalWatcher() {
  if (thread_.joinable()) {
    const std::uint64_t one = 1;
    [[maybe_unused]] ssize_t n = write(wake_fd_.get(), &one, sizeof one);
    thread_.join();
  }
  sigaction(SIGPIPE, &previous_pipe_, nullptr);
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

void SignalWatcher::watch() {
  pollfd fds[2] = {{signal_fd_.get(), POLLIN, 0}, {wake_fd_.get(), POLLIN, 0}};
  for (;;) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    signalfd_siginfo info{};
    if (read(signal_fd_.get(), &info, sizeof info) == sizeof info) {
      last_signal_ = static_cast<int>(info.ssi_signo);
      interrupt_.trigger();
    }
  }
}

}  // namespace stampede::lab
