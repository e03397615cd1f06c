#include "loadgen/sweep.h"
#include "core/units.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

namespace stampede::loadgen {
namespace {

constexpr const char* kOption = "--sweep-connections";

// A whole number of digits only (no sign, no exponent, nothing after it), at most `maximum`.
Expected<std::uint32_t> sweep_number(std::string_view text, std::uint32_t maximum,
                                     const char* what) {
  const bool digits = !text.empty() && std::all_of(text.begin(), text.end(),
                                                   [](char c) { return c >= '0' && c <= '9'; });
  std::uint64_t value = 0;
  if (digits) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range) value = std::uint64_t{maximum} + 1;
  }
  if (!digits) {
    return make_error(fmt::format("{}: '{}' is not a whole number ({})", kOption, text, what));
  }
  if (value > maximum) {
    return make_error(fmt::format("{}: {} is more than {} ({})", kOption, text, maximum, what));
  }
  return static_cast<std::uint32_t>(value);
}

Expected<std::uint32_t> sweep_count(std::string_view text) {
  auto n = sweep_number(text, kMaxSweepConnections, "a connection count");
  if (n && *n == 0)
    return make_error(fmt::format("{}: a step needs at least 1 connection", kOption));
  return n;
}

// "A..BxF".
Expected<std::vector<std::uint32_t>> parse_range(std::string_view text, std::size_t dots) {
  const std::size_t x = text.find('x', dots);
  if (x == std::string_view::npos) {
    return make_error(
        fmt::format("{}: a range needs a factor: FROM..TOxFACTOR, e.g. 1..256x2", kOption));
  }
  auto from = sweep_count(text.substr(0, dots));
  if (!from) return from.error();
  auto to = sweep_count(text.substr(dots + 2, x - dots - 2));
  if (!to) return to.error();
  auto factor = sweep_number(text.substr(x + 1), kMaxSweepConnections, "the factor");
  if (!factor) return factor.error();
  if (*factor < 2) return make_error(fmt::format("{}: the factor must be at least 2", kOption));
  if (*to <= *from) {
    return make_error(fmt::format("{}: the range {} must go up", kOption, text));
  }
  std::vector<std::uint32_t> steps;
  for (std::uint64_t n = *from; n <= *to; n *= *factor)
    steps.push_back(static_cast<std::uint32_t>(n));
  if (steps.back() != *to) steps.push_back(*to);
  return steps;
}

Expected<std::vector<std::uint32_t>> parse_list(std::string_view text) {
  std::vector<std::uint32_t> steps;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    auto n = sweep_count(text.substr(start, comma - start));
    if (!n) return n.error();
    if (!steps.empty() && *n <= steps.back()) {
      return make_error(
          fmt::format("{}: the counts must go up ({} after {})", kOption, *n, steps.back()));
    }
    steps.push_back(*n);
    start = comma + 1;
  }
  return steps;
}

std::string connections_text(std::uint32_t n) {
  return fmt::format("{} connection{}", n, n == 1 ? "" : "s");
}

}  // namespace

Expected<std::vector<std::uint32_t>> parse_sweep_steps(std::string_view text) {
  if (text.empty()) {
    return make_error(
        fmt::format("{}: expected connection counts, e.g. 1,2,4,8 or 1..256x2", kOption));
  }
  const std::size_t dots = text.find("..");
  auto steps = dots == std::string_view::npos ? parse_list(text) : parse_range(text, dots);
  if (steps && steps->size() > kMaxSweepSteps) {
    return make_error(
        fmt::format("{}: {} steps is more than {}", kOption, steps->size(), kMaxSweepSteps));
  }
  return steps;
}

SweepStep summarize_step(const RunResult& result) {
  SweepStep s;
  s.connections = result.concurrency;
  s.requests = result.total_requests;
  s.errors = result.total_errors;
  s.seconds = result.elapsed_seconds();
  s.rps = result.effective_rps();
  s.mean_ms = result.latency.mean() / 1e6;
  s.p50_ms = ns_to_ms(result.latency.percentile(50));
  s.p90_ms = ns_to_ms(result.latency.percentile(90));
  s.p99_ms = ns_to_ms(result.latency.percentile(99));
  s.max_ms = ns_to_ms(result.latency.max());
  return s;
}

std::optional<Knee> find_knee(const std::vector<SweepStep>& steps) {
  for (std::size_t i = 1; i < steps.size(); ++i) {
    const SweepStep& before = steps[i - 1];
    const SweepStep& after = steps[i];
    if (before.rps <= 0 || before.connections == 0) continue;
    const double gain = after.rps / before.rps - 1;
    const double more = static_cast<double>(after.connections) / before.connections - 1;
    if (gain < kKneeGainShare * more && after.p50_ms > before.p50_ms) return Knee{i - 1, i, gain};
  }
  return std::nullopt;
}

std::string describe_knee(const std::vector<SweepStep>& steps) {
  if (steps.size() < 2) return "one step: no knee can be named (give two or more counts)";
  const auto knee = find_knee(steps);
  if (!knee) {
    const SweepStep& last = steps.back();
    return fmt::format(
        "no knee up to {}: every step's throughput grew by at least {:.0f}% of its "
        "growth in connections, or its latency did not grow (last step {:.0f} req/s, p50 {:.3g} "
        "ms); try more connections",
        connections_text(last.connections), kKneeGainShare * 100, last.rps, last.p50_ms);
  }
  const SweepStep& at = steps[knee->index];
  const SweepStep& past = steps[knee->next];
  const double little = past.mean_ms > 0 ? past.connections / (past.mean_ms / 1e3) : 0;
  return fmt::format(
      "knee at {}: going to {} ({:+.0f}% connections) changed throughput by {:+.1f}% "
      "({:.0f} -> {:.0f} req/s) while p50 rose {:.3g} -> {:.3g} ms. Little's law, throughput = "
      "connections / "
      "latency: {} / {:.3g} ms mean = {:.0f} req/s, so past {} the extra requests "
      "wait in a queue: they add latency, not throughput",
      connections_text(at.connections), past.connections,
      (static_cast<double>(past.connections) / at.connections - 1) * 100, knee->gain * 100, at.rps,
      past.rps, at.p50_ms, past.p50_ms, past.connections, past.mean_ms, little,
      connections_text(at.connections));
}

Expected<SweepResult> run_sweep(Plan& plan, const std::vector<std::uint32_t>& steps,
                                const SweepHooks& hooks) {
  if (plan.config.rps > 0) return make_error("a concurrency sweep runs closed loop: no rate");
  // The plan is the sweep's for its duration: each step's run reads it with that step's
  // connections (a Plan is not copied: it owns the run's TLS context).
  const Config saved = plan.config;
  if (plan.config.max_duration.count() == 0 && plan.config.max_requests == 0)
    plan.config.max_duration = kDefaultSweepStep;
  SweepResult sweep;
  sweep.url = plan.config.url;
  sweep.keep_alive = plan.config.keep_alive;
  sweep.max_requests = plan.config.max_requests;
  sweep.step_seconds = std::chrono::duration<double>(plan.config.max_duration).count();
  Expected<void> outcome;
  for (std::uint32_t connections : steps) {
    plan.config.concurrency = connections;
    auto result = run(plan, hooks.run);
    if (!result) {
      outcome = result.error();
      break;
    }
    sweep.steps.push_back(summarize_step(*result));
    if (hooks.on_step) hooks.on_step(sweep.steps.back());
    if (result->interrupted || (hooks.run.stop != nullptr && hooks.run.stop->stop_requested())) {
      sweep.interrupted = true;
      break;
    }
  }
  plan.config = saved;
  if (!outcome) return outcome.error();
  return sweep;
}

}  // namespace stampede::loadgen
