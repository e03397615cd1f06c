// SignalWatcher: Ctrl-C (SIGINT) and SIGTERM as a stop request, for the generator's entry points
// (cli/generator.h, and each rank of cli/mpi_main.h, where mpirun passes them on).
//
// The signals are blocked in the constructing thread and received by sigwait on a thread of the
// watcher's own, so that the run's threads never see them: make the watcher on the main thread
// before any other thread starts (under MPI, before MPI_Init: its threads inherit the mask). The
// first signal requests a stop (the run ends early and its report covers what ran); a second one
// exits at once with 128 + the signal, for a user who does not want to wait for the report. The
// destructor ends the thread; the signals stay blocked.
#pragma once

#include <signal.h>

#include <atomic>
#include <thread>

#include "loadgen/runner.h"

namespace stampede::loadgen {

class SignalWatcher {
 public:
  explicit SignalWatcher(StopSignal& stop);
  ~SignalWatcher();
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

 private:
  sigset_t set_;
  std::atomic<bool> closing_{false};
  std::thread thread_;
};

}  // namespace stampede::loadgen
