// The findings of the slow, sticky and outage scenarios (findings_detail.h).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "lab/findings_detail.h"

namespace stampede::lab {
namespace detail {
namespace {

const RunRecord* find_run(const std::vector<RunRecord>& runs, ScenarioKind kind,
                          const std::string& strategy) {
  for (const RunRecord& r : runs)
    if (r.scenario == kind && r.strategy == strategy) return &r;
  return nullptr;
}

double slow_share(const RunRecord& run, std::size_t slow) {
  return shares(run, share_source(run))[slow];
}

// " (least gave c 0.5% at 10412 req/s)" when another strategy routed around the slow member.
std::string better_strategy(const RunRecord& run, const std::vector<RunRecord>& runs,
                            std::size_t slow) {
  const double fair = 1.0 / static_cast<double>(run.instances.size());
  for (const RunRecord& other : runs) {
    if (other.scenario != ScenarioKind::Slow || other.strategy == run.strategy) continue;
    if (slow_index(other) != slow) continue;
    const double share = slow_share(other, slow);
    if (share <= kRoutedAround * fair && other.rps > run.rps) {
      return fmt::format(" ({} gave {} {} at {} on the same pool)", other.strategy,
                         other.instances[slow].name, pct(share), rate(other.rps));
    }
  }
  return "";
}

std::string health_label(const std::optional<std::int64_t>& health_ms) {
  if (!health_ms) return "health as configured";
  if (*health_ms == 0) return "health off";
  return fmt::format("health {} ms", *health_ms);
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

std::string split_text(const std::vector<std::uint32_t>& split) {
  std::vector<std::string> parts;
  for (std::uint32_t n : split)
    parts.push_back(std::to_string(n));
  return join(parts, "/");
}

std::string split_shares(const std::vector<std::uint32_t>& split, std::uint32_t sessions) {
  std::vector<std::string> parts;
  for (std::uint32_t n : split)
    parts.push_back(pct(static_cast<double>(n) / static_cast<double>(sessions)));
  return join(parts, " / ");
}

// One outage run's part of the detector line, plus its own notes.
std::string read_outage(const RunRecord& run, std::vector<Finding>& out) {
  const OutageTiming& t = *run.outage;
  const double share = run.requests ? static_cast<double>(run.errors) / run.requests : 0.0;
  std::string part = fmt::format("{}: {} of {} failed ({})", health_label(run.health_ms),
                                 run.errors, run.requests, pct(share));
  if (t.last_failure_after_kill_s) {
    part += fmt::format(", last failure {:.2f} s after the kill", *t.last_failure_after_kill_s);
  }
  const double dead_s = t.run_s - t.kill_at_s;
  const double owed = dead_s > 0 && t.run_s > 0
                          ? dead_s / t.run_s / static_cast<double>(run.instances.size())
                          : 0.0;
  if (run.errors > 0 && share > owed) {
    out.push_back(note(
        FindingKind::ErrorShareAboveTraffic, run.label(),
        fmt::format("{} of requests failed, more than the {} {} was owed (1/{} of the {:.1f} s "
                    "of {:.1f} s it was dead): a dead member answers faster than the live ones "
                    "(a refused connection returns at once), so it took more turns. Expect the "
                    "error rate to exceed the traffic share during an outage.",
                    pct(share), pct(owed), t.killed, run.instances.size(), dead_s, t.run_s)));
  }
  const double margin = std::max(0.25, 2 * t.resolution_s);
  if (t.last_failure_after_kill_s && *t.last_failure_after_kill_s >= dead_s - margin) {
    out.push_back(
        note(FindingKind::OutageUndetected, run.label(),
             fmt::format("requests kept failing until the end of the run ({:.2f} s "
                         "after the kill): the balancer never took {} out ({}).",
                         *t.last_failure_after_kill_s, t.killed, health_label(run.health_ms))));
  }
  return part;
}

}  // namespace

void read_slow(const RunRecord& run, const std::vector<RunRecord>& runs,
               std::vector<Finding>& out) {
  const std::size_t slow = slow_index(run);
  if (slow >= run.instances.size()) return;
  const InstanceRow& row = run.instances[slow];
  const double fair = 1.0 / static_cast<double>(run.instances.size());
  const double share = slow_share(run, slow);
  const RunRecord* base = find_run(runs, ScenarioKind::Even, run.strategy);
  const double ratio = base && base->rps > 0 ? run.rps / base->rps : -1;
  const std::string through = ratio >= 0
                                  ? fmt::format("{} against {} on the even pool (x{:.2f})",
                                                rate(run.rps), rate(base->rps), ratio)
                                  : fmt::format("{} (no even run to compare)", rate(run.rps));
  const std::string slow_name = fmt::format("{} ({} ms)", row.name, row.delay_ms);
  if (share >= kFullTurn * fair && (ratio < 0 || ratio < kThroughputFell)) {
    out.push_back(note(FindingKind::EvenShareLowThroughput, run.label(),
                       fmt::format("even share, low throughput: {} still took {} — its full "
                                   "turn of {} — and throughput was {}. Turns are even, capacity "
                                   "is not: compare per-instance latency ({}), then try least "
                                   "connections{}.",
                                   slow_name, pct(share), pct(fair), through, direct_latency(run),
                                   better_strategy(run, runs, slow))));
  } else if (share >= kFullTurn * fair) {
    out.push_back(note(FindingKind::SlowAbsorbed, run.label(),
                       fmt::format("{} took its full turn ({}) and throughput held: {}; at this "
                                   "load the delay costs little.",
                                   slow_name, pct(share), through)));
  } else {
    out.push_back(
        note(FindingKind::RoutesAroundSlow, run.label(),
             fmt::format("uneven share, throughput {}: {} took {} against a fair {} — the strategy "
                         "is routing {}around a slow member, and the uneven share is correct here. "
                         "Confirm which member is slow before calling it a fault ({}).",
                         through, slow_name, pct(share), pct(fair),
                         share <= kRoutedAround * fair ? "" : "partly ", direct_latency(run))));
  }
}

void read_sticky(const RunRecord& run, std::vector<Finding>& out) {
  if (run.sessions.empty()) return;
  const SessionPlacement placed = place_sessions(run);
  if (!placed.split.empty()) {
    out.push_back(fail(FindingKind::SessionSplit, run.label(),
                       fmt::format("{} served by more than one instance while every instance "
                                   "was up ({}): the balancer does not keep sessions.",
                                   join(placed.split, ", "), placed.placement)));
    return;
  }
  out.push_back(note(FindingKind::SessionsKept, run.label(),
                     "every session stayed on one instance: " + placed.placement + "."));
  const auto sessions = static_cast<std::uint32_t>(run.sessions.size());
  const auto instances = static_cast<std::uint32_t>(run.instances.size());
  const std::vector<std::uint32_t> best = best_split(sessions, instances);
  if (placed.per_instance == best) {
    out.push_back(note(
        FindingKind::StickyArithmetic, run.label(),
        fmt::format("{} sessions over {} instances: {} sessions ({}) is the best split "
                    "available, and the balancer gave it. {}",
                    sessions, instances, split_text(best), split_shares(best, sessions),
                    sessions % instances == 0
                        ? "It is even because the sessions divide evenly."
                        : "It cannot be even: skew under stickiness is arithmetic, not a bug.")));
  } else {
    out.push_back(note(
        FindingKind::StickyChance, run.label(),
        fmt::format("sessions per instance {} ({}); the best split {} sessions allow over {} "
                    "instances is {}. A hash places each session on its own, so with few "
                    "sessions a worse split is common: measure with more sessions before "
                    "calling it a fault.",
                    split_text(placed.per_instance), split_shares(placed.per_instance, sessions),
                    sessions, instances, split_text(best))));
  }
}

void read_outages(const std::vector<RunRecord>& runs, std::vector<Finding>& out) {
  std::vector<std::string> parts;
  const RunRecord* first = nullptr;
  for (const RunRecord& run : runs) {
    if (run.scenario != ScenarioKind::Outage || !run.outage) continue;
    if (first == nullptr) first = &run;
    parts.push_back(read_outage(run, out));
  }
  if (first == nullptr) return;
  const OutageTiming& t = *first->outage;
  bool any_failed = false, all_same = true;
  for (const RunRecord& run : runs) {
    if (run.scenario != ScenarioKind::Outage || !run.outage) continue;
    any_failed = any_failed || run.errors > 0;
    all_same = all_same && run.errors == first->errors;
  }
  std::string moral;
  if (!any_failed) {
    moral = fmt::format(
        " No request failed: the balancer kept {}'s requests from failing on its "
        "own (it re-sends refused connections elsewhere, or detects the death "
        "passively), so the health interval did not matter.",
        t.killed);
  } else if (parts.size() > 1 && !all_same) {
    moral =
        " The instance died at the same moment in every run and only the health interval "
        "changed: the number describes the detector, not the fault.";
  }
  const std::string scope =
      first->strategy.empty() ? std::string("outage") : "outage/" + first->strategy;
  out.push_back(note(FindingKind::OutageDetector, scope,
                     fmt::format("{} killed {:.1f} s into a {:.1f} s run. {}.{}", t.killed,
                                 t.kill_at_s, t.run_s, join(parts, "; "), moral)));
}

std::string join_parts(const std::vector<std::string>& parts) {
  return join(parts, "; ");
}

}  // namespace detail

std::vector<std::uint32_t> best_split(std::uint32_t sessions, std::uint32_t instances) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < instances; ++i)
    out.push_back(sessions / instances + (i < sessions % instances ? 1 : 0));
  return out;
}

SessionPlacement place_sessions(const RunRecord& record) {
  SessionPlacement placed;
  std::map<std::string, std::uint32_t> per_name;
  for (const InstanceRow& row : record.instances)
    per_name[row.name] = 0;
  std::vector<std::string> parts;
  for (const SessionRow& session : record.sessions) {
    const auto& served = session.by_instance.empty() ? session.by_backend : session.by_instance;
    std::vector<std::string> names;
    std::string majority;
    std::uint64_t most = 0;
    for (const auto& [name, n] : served) {
      if (n == 0) continue;
      names.push_back(name);
      if (n > most) {
        most = n;
        majority = name;
      }
    }
    if (names.size() > 1) placed.split.push_back(session.name);
    if (!majority.empty()) ++per_name[majority];
    parts.push_back(session.name + "=" + (names.empty() ? "none" : detail::join(names, "+")));
  }
  for (const auto& [name, n] : per_name)
    placed.per_instance.push_back(n);
  std::sort(placed.per_instance.begin(), placed.per_instance.end(), std::greater<>());
  placed.placement = detail::join(parts, " ");
  return placed;
}

}  // namespace stampede::lab
