// The load of each run, through the generator's library API (loadgen::run, in-process): the
// closed-loop run of even and slow, the concurrent sessions of sticky, the run with a kill of
// outage, and the direct latency probe of each instance. Called from the lab's main thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/expected.h"
#include "lab/config.h"
#include "lab/failure_clock.h"
#include "lab/interrupt.h"
#include "lab/live_runs.h"
#include "loadgen/config.h"
#include "loadgen/runner.h"
#include "loadgen/sweep.h"
#include "net/socket.h"

namespace stampede::lab {

// The generator's config for a run against `url`: keep-alive (as the guide's autocannon),
// closed loop, x-instance and x-backend counted. The one place where LoadSettings reach
// loadgen::Config (a --rps would pass through here).
loadgen::Config make_load_config(const LoadSettings& load, const std::string& url);

// The failures of one timed run (the outage's, the hang's), from its progress lines every
// kFailureTimingInterval: hooks() go to run_load, with `live` (the run's live feed, or none) in
// them; failures() is read once it returned; start_ns() is when the watch was made (mono_ns), the
// origin of the run's times. Made and read on the lab's main thread; the generator's progress
// printer writes to its stream during the run, so it is neither copied nor moved.
class FailureWatch {
 public:
  static constexpr std::chrono::milliseconds kFailureTimingInterval{20};  // the resolution

  explicit FailureWatch(loadgen::LiveFeed* live);
  FailureWatch(const FailureWatch&) = delete;
  FailureWatch& operator=(const FailureWatch&) = delete;

  const loadgen::RunHooks& hooks() const { return hooks_; }
  const FailureClock& failures() const { return failures_; }
  std::int64_t start_ns() const { return start_ns_; }
  double resolution_s() const;

 private:
  SteadyClock clock_;
  FailureClock failures_{clock_};
  std::ostream progress_{&failures_};
  loadgen::RunHooks hooks_;
  std::int64_t start_ns_ = 0;
};

// One run, stopped early by `interrupt`.
Expected<loadgen::RunResult> run_load(const loadgen::Config& config, Interrupt& interrupt,
                                      const loadgen::RunHooks& hooks = {});

// The sticky scenario's load: `sessions` runs at once, one thread each, each one connection
// sending `requests` requests with `x-session: s1`, `s2`, ... With `live`, each session's run is
// fed to it under `labels` with its session's name.
struct SessionResult {
  std::string name;
  loadgen::RunResult result;
};
Expected<std::vector<SessionResult>> run_sessions(const std::string& url, std::uint32_t sessions,
                                                  std::uint32_t requests, Interrupt& interrupt,
                                                  LiveRuns* live = nullptr,
                                                  const RunLabels& labels = {});

// The outage scenario's load: `config` runs while another thread calls `kill` once
// `kill_after` has passed (unless the run ended first). `live`: the run's figures (none: null).
struct OutageResult {
  loadgen::RunResult result;
  std::optional<double> kill_at_s;       // after the start; nullopt when the kill never happened
  std::optional<double> last_failure_s;  // after the start (upper bound); nullopt: none failed
  double resolution_s = 0;               // how finely the failures were timed
};
Expected<OutageResult> run_outage(const loadgen::Config& config,
                                  std::chrono::nanoseconds kill_after,
                                  const std::function<void()>& kill, Interrupt& interrupt,
                                  loadgen::LiveFeed* live = nullptr);

// The sweep's load: loadgen::run_sweep over `config` (closed loop; its connections set by each
// step), stopped early by `interrupt`; every step's figures add up in `live` (none: null).
Expected<std::vector<loadgen::SweepStep>> run_sweep_load(const loadgen::Config& config,
                                                         const std::vector<std::uint32_t>& steps,
                                                         Interrupt& interrupt,
                                                         loadgen::LiveFeed* live = nullptr);

// One HTTP/2 (h2c, prior knowledge) GET to `url` within `timeout`, through the generator: the
// first request of an h2 run (balancer_proc.h). Fails, saying what came back, unless it was
// answered with a status below 500.
Expected<void> h2_first_answer(const std::string& url, std::chrono::milliseconds timeout);

// An instance's own latency, straight to it (not through the balancer): a short keep-alive run
// on one connection. p50 and p99 in ms.
struct DirectLatency {
  double p50_ms = 0;
  double p99_ms = 0;
};
Expected<DirectLatency> probe_latency(const std::string& host_port, Interrupt& interrupt,
                                      loadgen::LiveFeed* live = nullptr);

}  // namespace stampede::lab
