// find_capacity(): the capacity search (--find-max). Runs open-loop steps at constant rates,
// judges each one on its corrected latency, its errors and whether its rate was held, and lets
// CapacitySearch (capacity_search.h) choose the next rate, until the highest rate within the
// limits is known to the resolution. docs/capacity.md describes the method and its defaults.
//
// Each step is one run(const Plan&) (runner.h) of the caller's plan with its rate and duration
// set (a Plan owns its TLS context and is not copied): between the runs, on the calling thread,
// find_capacity() writes plan.config's rps, ramp, max_requests and max_duration, and resolves the
// plan once. It blocks for the whole search (steps plus cool-downs).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "loadgen/capacity_search.h"
#include "loadgen/plan.h"
#include "loadgen/runner.h"

namespace stampede::loadgen {

// A step whose rate held less than this fraction of the rate asked failed, whatever its latency.
inline constexpr double kHeldFraction = 0.97;
// The defaults a user can change (docs/capacity.md).
inline constexpr double kDefaultResolution = 0.02;
inline constexpr double kDefaultMaxErrorRatePct = 1;
inline constexpr std::chrono::seconds kDefaultCoolDown{1};
// Without a step duration, a step lasts the longer of kMinStepTime and the time kMinStepRequests
// take at its rate: enough requests for a p99 to mean something (ten beyond it).
inline constexpr std::chrono::seconds kMinStepTime{2};
inline constexpr double kMinStepRequests = 1000;
// Without a start rate, a closed-loop probe of this length runs first; the search starts at
// half its throughput of successful responses.
inline constexpr std::chrono::seconds kProbeTime{1};

struct CapacityParams {
  double max_p99_ms = 0;  // > 0: the corrected p99 a passing step stays within
  double max_error_rate_pct = kDefaultMaxErrorRatePct;    // errors / requests, 0 to 100
  std::optional<double> start_rps;                        // none: from the probe
  std::optional<std::chrono::nanoseconds> step_duration;  // none: the rule above
  double resolution = kDefaultResolution;                 // a fraction, (0, 1]
  std::chrono::nanoseconds cool_down = kDefaultCoolDown;  // idle time before each step
};

enum class StepVerdict {
  Pass,
  LatencyOver,     // corrected p99 above the limit
  ErrorsOver,      // error rate above the limit
  RateNotHeld,     // the server (every connection busy) could not take the rate
  GeneratorLimit,  // the generator fell behind, or failed locally: the step says nothing
};

// One step as the reports show it.
struct CapacityStep {
  double asked_rps = 0;
  double held_rps = 0;  // requests sent / send window
  double seconds = 0;   // the step's duration
  std::uint64_t requests = 0;
  std::uint64_t errors = 0;
  double p50_ms = 0, p99_ms = 0, p999_ms = 0;  // corrected latency
  StepVerdict verdict = StepVerdict::Pass;
  std::string reason;  // why it failed, one plain sentence; empty for a pass
};

// Judges one step's result (an open-loop run at `asked_rps`). In this order: local failures or
// a rate lost mostly to the generator's own lateness (requests late with a connection free) are
// GeneratorLimit; a held rate below kHeldFraction of asked is RateNotHeld; then errors; then
// the corrected p99, which is GeneratorLimit instead when the uncorrected p99 (from each
// request's actual send) is within the limit and most late requests had a connection free.
CapacityStep judge_step(const RunResult& result, double asked_rps, const CapacityParams& params);

// The step duration for `rate`: params.step_duration, else the rule above.
std::chrono::nanoseconds step_duration(const CapacityParams& params, double rate);

struct CapacityResult {
  std::string url;
  std::uint32_t clients = 0;
  bool keep_alive = false;
  CapacityParams params;
  std::optional<double> probe_rps;  // the closed-loop probe's throughput, when it ran
  std::vector<CapacityStep> steps;  // in the order run
  SearchEnd end = SearchEnd::Running;
  bool generator_limited = false;  // Stopped by a GeneratorLimit step (else by an interrupt)
  std::optional<double> last_pass;
  std::optional<double> first_fail;
};

struct CapacityHooks {
  std::ostream* progress = nullptr;  // one line per step; none when null
  StopSignal* stop = nullptr;        // ends the search after the current step, with its result
};

// Searches `plan` (its rate, ramp, -n and -t are replaced per step; they keep the last step's).
// Errors: the target cannot be resolved, a step cannot start, or the probe got no successful
// response (nothing to start from).
Expected<CapacityResult> find_capacity(Plan& plan, const CapacityParams& params,
                                       const CapacityHooks& hooks = {});

// Plain words for a verdict ("pass", "latency", "errors", "rate", "generator").
std::string_view verdict_name(StepVerdict verdict);

}  // namespace stampede::loadgen
