// Ctrl-C for the lab: SIGINT, SIGTERM and SIGHUP become a request to stop, seen by the load
// runs in progress (through loadgen::StopSignal) and by every wait of the lab, which then
// unwinds normally so that the owners of the child processes stop them and the scratch
// directory is removed. SIGPIPE is ignored meanwhile: a reader of the lab's output that goes
// away (`stampede lab | head`) makes the writes fail instead of killing the lab on the spot.
#pragma once

#include <signal.h>
#include <mutex>
#include <thread>
#include <vector>

#include "core/expected.h"
#include "loadgen/runner.h"
#include "net/fd.h"

namespace stampede::lab {

// A stop request shared by the lab's threads. Thread-safe.
class Interrupt {
 public:
  // Requests the stop: every attached StopSignal is told, and so is any attached later.
  void trigger();
  bool requested() const;
  // A load run in progress: `stop` is told of a trigger until detach(). Not owned.
  void attach(loadgen::StopSignal& stop);
  void detach(loadgen::StopSignal& stop);

 private:
  mutable std::mutex mutex_;
  bool requested_ = false;
  std::vector<loadgen::StopSignal*> stops_;
};

// Blocks SIGINT, SIGTERM and SIGHUP in the constructing thread (and so in every thread it
// starts afterwards: construct it before any other) and watches them on a thread of its own,
// through a signalfd; each one triggers `interrupt`. Ignores SIGPIPE in the whole process. The
// destructor stops the watcher and restores the signal mask and SIGPIPE's action. Children get
// an empty mask and the default SIGPIPE (process.h).
class SignalWatcher {
 public:
  static Expected<std::unique_ptr<SignalWatcher>> start(Interrupt& interrupt);
  ~SignalWatcher();
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

  int last_signal() const { return last_signal_; }  // 0 when none arrived; read after stop

 private:
  SignalWatcher(Interrupt& interrupt, const sigset_t& previous);
  void watch();

  Interrupt& interrupt_;
  sigset_t previous_;
  struct sigaction previous_pipe_ {};
  net::Fd signal_fd_;
  net::Fd wake_fd_;  // eventfd: written by the destructor to end the watcher
  std::thread thread_;
  int last_signal_ = 0;  // written by the watcher, read after join
};

}  // namespace stampede::lab
