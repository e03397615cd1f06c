// The concurrency sweep (--sweep-connections): one closed-loop run per connection count, and the
// knee of the curve those runs draw.
//
// parse_sweep_steps and find_knee are pure (no sockets, no clock): the step list as the user
// wrote it, and the rule that names the knee. run_sweep is the runner: it calls run(const Plan&)
// once per step, the plan set to that step's connections, on the caller's thread, and keeps a
// summary of each step (no per-request storage).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "loadgen/plan.h"
#include "loadgen/runner.h"

namespace stampede::loadgen {

// The largest connection count a step may ask for, and the longest list of steps.
inline constexpr std::uint32_t kMaxSweepConnections = 10'000;
inline constexpr std::size_t kMaxSweepSteps = 64;
// How long each step runs when neither -t nor -n is given.
inline constexpr std::chrono::seconds kDefaultSweepStep{3};
// The knee rule's threshold: a step whose throughput grew by less than this fraction of its
// growth in connections (under 10% for twice the connections), while its p50 grew, is past the
// knee. Scaled by the step so that 1,2,4 and 100,110,120 are judged alike.
inline constexpr double kKneeGainShare = 0.1;

// "1,2,4,8": the counts as listed; "1..256x2": from 1, times 2 while at most 256, and 256 itself
// last when the factor does not land on it (1..100x3: 1,3,9,27,81,100). Counts are whole
// numbers from 1 to kMaxSweepConnections, strictly ascending, at most kMaxSweepSteps of them; a
// factor is a whole number of at least 2. Errors are one line for the user.
Expected<std::vector<std::uint32_t>> parse_sweep_steps(std::string_view text);

// What one step measured. Latencies in ms (the step's closed-loop latency histogram).
struct SweepStep {
  std::uint32_t connections = 0;
  std::uint64_t requests = 0;
  std::uint64_t errors = 0;
  double seconds = 0;
  double rps = 0;  // completed requests per second (RunResult::effective_rps)
  double mean_ms = 0;
  double p50_ms = 0;
  double p90_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
};

SweepStep summarize_step(const RunResult& result);

// The knee: the last step at which more connections still bought throughput. Step i (i >= 1) is
// past the knee when its throughput rose by less than kKneeGainShare of its rise in connections
// over step i-1 (connections x2, +100%: throughput under +10%) while its p50 is above step i-1's:
// by Little's law (throughput = connections / latency) the added connections then only queue.
// The first such step's predecessor is the knee. nullopt when no step is past it (throughput
// kept up, or latency did not grow). Steps must be in ascending order of connections.
struct Knee {
  std::size_t index = 0;  // the knee's step
  std::size_t next = 0;   // the first step past it (index + 1)
  double gain = 0;        // throughput of `next` over the knee's, minus 1 (0.021: 2.1%)
};
std::optional<Knee> find_knee(const std::vector<SweepStep>& steps);

// The knee in one plain sentence with its figures and Little's law (throughput = connections /
// mean latency); without a knee, what the last steps did instead.
std::string describe_knee(const std::vector<SweepStep>& steps);

struct SweepResult {
  std::string url;
  bool keep_alive = false;
  std::uint64_t max_requests = 0;  // -n per step; 0: by time
  double step_seconds = 0;         // the time limit of each step (0 with -n alone)
  std::vector<SweepStep> steps;    // the steps that ran, in order
  bool interrupted = false;        // stopped early: the steps after the stop did not run
};

struct SweepHooks {
  RunHooks run;  // each step's progress and stop
  // Called after each step, on the caller's thread (progress lines); may be empty.
  std::function<void(const SweepStep&)> on_step;
};

// Runs `plan` once per count in `steps` (from parse_sweep_steps), each a closed-loop run with
// that many connections and the plan's other settings (its -n and -t per step; kDefaultSweepStep
// when it has neither). The plan must be closed loop (no rate). Stops after the step during
// which hooks.run.stop was requested. Errors are a step's set-up failure. The plan's
// config.concurrency (and max_duration) change for each step and are restored before it returns;
// nothing else may use the plan meanwhile.
Expected<SweepResult> run_sweep(Plan& plan, const std::vector<std::uint32_t>& steps,
                                const SweepHooks& hooks = {});

}  // namespace stampede::loadgen
