#include "cli/signal_watcher.h"

#include <pthread.h>

#include <cstdlib>

namespace stampede::loadgen {

SignalWatcher::SignalWatcher(StopSignal& stop) {
  sigemptyset(&set_);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set_, nullptr);
  thread_ = std::thread([this, &stop] {
    int sig = 0;
    while (sigwait(&set_, &sig) == 0 && !closing_.load()) {
      if (stop.stop_requested()) std::_Exit(128 + sig);
      stop.request_stop();
    }
  });
}

SignalWatcher::~SignalWatcher() {
  closing_.store(true);
  pthread_kill(thread_.native_handle(), SIGTERM);
  thread_.join();
}

}  // namespace stampede::loadgen
