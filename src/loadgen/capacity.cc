#include "loadgen/capacity.h"

#include <algorithm>
#include <cmath>
#include <thread>
#include <utility>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "core/enum_names.h"
#include "core/units.h"
#include "loadgen/options.h"

namespace stampede::loadgen {
namespace {

double error_pct(const RunResult& r) {
  if (r.total_requests == 0) return 0;
  return 100.0 * static_cast<double>(r.total_errors) / static_cast<double>(r.total_requests);
}

// GeneratorLimit when the step's failure is the generator's own, else nullopt.
std::optional<std::string> generator_reason(const RunResult& r, const CapacityParams& params,
                                            bool rate_held, bool latency_over) {
  if (!r.local_errors.empty()) {
    const auto& [code, n] = *r.local_errors.begin();
    return fmt::format("{} requests failed on this machine ({}), not at the server", n, code);
  }
  const RateResult& rate = *r.rate;
  const std::uint64_t own = rate.late - rate.late_waiting;
  if (!rate_held && own > rate.late_waiting) {
    return fmt::format(
        "the generator fell behind: {} of {} late requests had a connection free when due", own,
        rate.late);
  }
  // Over the latency limit, yet the server answered within it once each request was sent: the
  // excess is the time requests waited to be sent with a connection free, the generator's.
  const double server_p99_ms = ns_to_ms(rate.uncorrected.percentile(99));
  if (latency_over && server_p99_ms <= params.max_p99_ms && own > rate.late_waiting) {
    return fmt::format(
        "the generator fell behind: p99 {:.1f} ms from the intended send times but {:.1f} ms from "
        "the actual ones, {} of {} late requests with a connection free",
        ns_to_ms(r.latency.percentile(99)), server_p99_ms, own, rate.late);
  }
  return std::nullopt;
}

}  // namespace

constexpr EnumName<StepVerdict> kVerdictNames[] = {{StepVerdict::Pass, "pass"},
                                                   {StepVerdict::LatencyOver, "latency"},
                                                   {StepVerdict::ErrorsOver, "errors"},
                                                   {StepVerdict::RateNotHeld, "rate"},
                                                   {StepVerdict::GeneratorLimit, "generator"}};
static_assert(in_enum_order(kVerdictNames));

std::string_view verdict_name(StepVerdict verdict) {
  return name_of(kVerdictNames, verdict);
}

CapacityStep judge_step(const RunResult& r, double asked_rps, const CapacityParams& params) {
  CapacityStep s;
  s.asked_rps = asked_rps;
  s.held_rps = r.rate ? r.rate->achieved_rps() : r.effective_rps();
  s.seconds = r.rate ? static_cast<double>(r.rate->send_window_ns) / 1e9 : r.elapsed_seconds();
  s.requests = r.total_requests;
  s.errors = r.total_errors;
  s.p50_ms = ns_to_ms(r.latency.percentile(50));
  s.p99_ms = ns_to_ms(r.latency.percentile(99));
  s.p999_ms = ns_to_ms(r.latency.percentile(99.9));
  const bool rate_held = s.held_rps >= kHeldFraction * asked_rps;
  const bool latency_over = s.p99_ms > params.max_p99_ms;
  if (r.rate) {
    if (auto own = generator_reason(r, params, rate_held, latency_over)) {
      s.verdict = StepVerdict::GeneratorLimit;
      s.reason = std::move(*own);
      return s;
    }
  }
  if (!rate_held) {
    s.verdict = StepVerdict::RateNotHeld;
    s.reason = fmt::format("{:.1f} req/s held of {:.1f} asked, below {:.0f}%", s.held_rps,
                           asked_rps, kHeldFraction * 100);
  } else if (error_pct(r) > params.max_error_rate_pct) {
    s.verdict = StepVerdict::ErrorsOver;
    s.reason = fmt::format("{:.2f}% errors, over {}%", error_pct(r), params.max_error_rate_pct);
  } else if (latency_over) {
    s.verdict = StepVerdict::LatencyOver;
    s.reason = fmt::format("p99 {:.1f} ms, over {} ms", s.p99_ms, params.max_p99_ms);
  }
  return s;
}

std::chrono::nanoseconds step_duration(const CapacityParams& params, double rate) {
  if (params.step_duration) return *params.step_duration;
  const double seconds =
      std::max(static_cast<double>(kMinStepTime.count()), kMinStepRequests / rate);
  return std::chrono::nanoseconds(static_cast<std::int64_t>(std::ceil(seconds * 1e9)));
}

namespace {

constexpr std::chrono::milliseconds kStopPoll{20};

bool stop_requested(const CapacityHooks& hooks) {
  return hooks.stop != nullptr && hooks.stop->stop_requested();
}

// Lets the server drain what the last run left before the next one is judged; ends early on a
// stop request (checked every kStopPoll: this is idle time, not synchronisation).
void cool_down(std::chrono::nanoseconds length, const CapacityHooks& hooks) {
  const auto until = std::chrono::steady_clock::now() + length;
  while (!stop_requested(hooks)) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= until) return;
    std::this_thread::sleep_for(std::min<std::chrono::nanoseconds>(until - now, kStopPoll));
  }
}

Expected<RunResult> run_step(Plan& plan, double rate, std::chrono::nanoseconds duration,
                             const CapacityHooks& hooks) {
  plan.config.max_requests = 0;
  plan.config.max_duration = duration;
  plan.config.rps = rate;
  plan.config.ramp = std::chrono::nanoseconds(0);
  RunHooks run_hooks;
  run_hooks.stop = hooks.stop;
  return run(plan, run_hooks);
}

// The closed-loop probe: the plan's connections for kProbeTime, as fast as the server answers.
// Its throughput of successful responses is where the search starts (halved): a rate limiter
// fails most of a closed loop's requests, and the ones it lets through are its rate.
Expected<double> probe(Plan& plan, const CapacityHooks& hooks) {
  plan.config.max_requests = 0;
  plan.config.max_duration = kProbeTime;
  plan.config.rps = 0;
  RunHooks run_hooks;
  run_hooks.stop = hooks.stop;
  auto r = run(plan, run_hooks);
  if (!r) return r.error();
  const double ok = static_cast<double>(r->total_requests - r->total_errors);
  if (ok == 0) {
    return make_error(fmt::format(
        "the closed-loop probe got {} responses in {:.1f} s, all of them errors: nothing to start "
        "the search from (give --start-rps to skip the probe)",
        r->total_requests, r->elapsed_seconds()));
  }
  return ok / std::max(r->elapsed_seconds(), 1e-3);
}

void print_step(const CapacityStep& s, std::size_t number, std::ostream& out) {
  fmt::print(out, "step {}: {:.1f} req/s asked, {:.1f} held, p99 {:.2f} ms, {} errors: {}{}{}\n",
             number, s.asked_rps, s.held_rps, s.p99_ms, s.errors, verdict_name(s.verdict),
             s.reason.empty() ? "" : " (", s.reason.empty() ? "" : s.reason + ")");
}

}  // namespace

Expected<CapacityResult> find_capacity(Plan& base, const CapacityParams& params,
                                       const CapacityHooks& hooks) {
  if (!base.address) {
    if (auto r = resolve(base); !r) return r.error();
  }
  CapacityResult result;
  result.url = base.config.url;
  result.clients = base.config.concurrency;
  result.keep_alive = base.config.keep_alive;
  result.params = params;
  double start = params.start_rps.value_or(0);
  if (!params.start_rps) {
    auto probed = probe(base, hooks);
    if (!probed) return probed.error();
    result.probe_rps = *probed;
    start = std::clamp(*probed / 2, kMinRps, kMaxRps);
    if (hooks.progress != nullptr) {
      fmt::print(*hooks.progress,
                 "probe: {:.1f} req/s closed loop with -c {}; starting at {:.1f}\n", *probed,
                 result.clients, start);
    }
    cool_down(params.cool_down, hooks);
  }
  CapacitySearch search({start, params.resolution, 2, kMaxRps});
  while (auto rate = search.next_rate()) {
    if (!result.steps.empty()) cool_down(params.cool_down, hooks);
    if (stop_requested(hooks)) break;
    auto r = run_step(base, *rate, step_duration(params, *rate), hooks);
    if (!r) return r.error();
    // An interrupted step is not judged: it did not run its length.
    if (r->interrupted || stop_requested(hooks)) break;
    result.steps.push_back(judge_step(*r, *rate, params));
    const CapacityStep& step = result.steps.back();
    if (hooks.progress != nullptr) print_step(step, result.steps.size(), *hooks.progress);
    if (step.verdict == StepVerdict::GeneratorLimit) {
      result.generator_limited = true;
      break;
    }
    search.record(step.verdict == StepVerdict::Pass);
  }
  search.stop();
  result.end = search.end();
  result.last_pass = search.last_pass();
  result.first_fail = search.first_fail();
  return result;
}

}  // namespace stampede::loadgen
