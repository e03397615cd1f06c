// The hang scenario's load: the generator runs while a thread of its own stops one instance
// (SIGSTOP) partway through and continues it (SIGCONT) later, and, when the balancer gives a
// /lb-stats view, watches when the balancer takes the instance out and brings it back. The
// stopped instance keeps its connections open and the kernel still accepts new ones for it: it
// answers nothing, the failure a kill does not show. Called from the lab's main thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "core/expected.h"
#include "lab/interrupt.h"
#include "lab/record.h"
#include "loadgen/config.h"
#include "loadgen/runner.h"

namespace stampede::lab {

// What the hang does to the instance, called on the hang's thread. `stop` is always followed
// by `resume` before run_hang returns, on every path (end of the run, interrupt, error).
struct HangActions {
  std::function<void()> stop;
  std::function<void()> resume;
  // The balancer's view of the instance (true: up), nullopt when it cannot be read; empty when
  // the balancer gives none (only stampede's own is polled: a request to another balancer's
  // /lb-stats could be proxied to the instances and counted there).
  std::function<std::optional<bool>()> up;
};

struct HangTimes {
  std::chrono::nanoseconds after{0};  // from the start of the run to SIGSTOP
  std::chrono::nanoseconds hold{0};   // from SIGSTOP to SIGCONT
};

// Seconds after the start of the run; nullopt when it did not happen (the run ended first).
struct HangOutcome {
  loadgen::RunResult result;
  std::optional<double> stop_at_s;
  std::optional<double> resume_at_s;
  std::optional<double> down_at_s;  // the balancer first said "down" (after the stop)
  std::optional<double> up_at_s;    // the balancer first said "up" again (after the resume)
  // The moments the accumulated failures grew, from the generator's progress lines (each an
  // upper bound within `resolution_s`), with the accumulated count then.
  struct Growth {
    double at_s = 0;
    std::uint64_t accumulated = 0;
  };
  std::vector<Growth> failures_grew;
  double resolution_s = 0;
};

Expected<HangOutcome> run_hang(const loadgen::Config& config, HangTimes times,
                               const HangActions& actions, Interrupt& interrupt,
                               loadgen::LiveFeed* live = nullptr);

// The run's timing record from its outcome (pure): detection and recovery as the run measured
// them. `backend_timeout_ms` and `health_timeout_ms` are what the balancer was started with
// (nullopt: not known, a command's own configuration).
HangTiming time_hang(const HangOutcome& outcome, const std::string& instance,
                     std::optional<std::int64_t> backend_timeout_ms,
                     std::optional<std::int64_t> health_timeout_ms);

}  // namespace stampede::lab
