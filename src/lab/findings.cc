#include "lab/findings.h"

#include "lab/h2.h"
#include "lab/limit.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/enum_names.h"
#include "lab/findings_detail.h"
#include "lab/sources.h"

namespace stampede::lab {
namespace {

using detail::fail;
using detail::note;
using detail::rate;

std::string gap_list(const std::vector<SourceGap>& gaps) {
  std::string out;
  for (const SourceGap& g : gaps) {
    if (!out.empty()) out += "; ";
    out += fmt::format("{} {} by {}, {} by x-instance", g.instance, g.value, source_name(g.source),
                       g.by_instance);
  }
  return out;
}

std::string stray_list(const std::map<std::string, std::uint64_t>& stray) {
  std::string out;
  for (const auto& [value, n] : stray) {
    if (!out.empty()) out += ", ";
    out += fmt::format("'{}' ({})", value, n);
  }
  return out;
}

// The sources of one run: fails for disagreements; counts runs that agree or lack x-backend.
void check_sources_of(const RunRecord& run, std::vector<Finding>& out, int& agreeing,
                      int& without_backend) {
  SourceCheck check = check_sources(run);
  // A hang: the stopped instance counts, when it is continued, the requests that waited in it,
  // whose answers the balancer no longer wanted. Its /count above x-instance is that, said in a
  // note; any other gap is still a failed check.
  bool excused = false;
  if (const std::string late = detail::late_answers(run); !late.empty()) {
    excused = std::erase_if(check.count_gaps, [&](const SourceGap& g) {
                return g.instance == run.hang->hung && g.value > g.by_instance;
              }) > 0;
    out.push_back(note(FindingKind::HangLateAnswers, run.label(), late));
  }
  const std::string errors = fmt::format("the run had {} failed requests", run.errors);
  if (!check.backend_agrees()) {
    std::string what = gap_list(check.backend_gaps);
    if (check.stray_backend > check.tolerance) {
      if (!what.empty()) what += "; ";
      what += "x-backend named " + stray_list(run.stray_backend_values) +
              ", which is no instance of this lab (name the balancer's servers after them)";
    }
    out.push_back(fail(FindingKind::HeadersDisagree, run.label(),
                       fmt::format("x-instance and x-backend disagree: {} ({}). The balancer's "
                                   "record does not match where the requests went: do not trust "
                                   "its counters; count at the instances.",
                                   what, errors)));
  }
  if (!check.count_agrees()) {
    std::string what = gap_list(check.count_gaps);
    if (check.stray_instance > check.tolerance) {
      if (!what.empty()) what += "; ";
      what += "x-instance named " + stray_list(run.stray_instance_values);
    }
    out.push_back(fail(FindingKind::CountDisagrees, run.label(),
                       fmt::format("/count and x-instance disagree: {} ({}). Something else "
                                   "reaches the instances (a health check on a counted path, "
                                   "another client) or responses were lost: the shares are not "
                                   "evidence until the sources agree.",
                                   what, errors)));
  }
  if (check.backend_agrees() && check.count_agrees() && !excused) {
    if (check.backend_compared) {
      ++agreeing;
    } else {
      ++without_backend;
    }
  }
}

void check_errors(const RunRecord& run, std::vector<Finding>& out) {
  // Outage, limit and hang runs fail requests by design: their own findings read the failures.
  const bool expected = run.scenario == ScenarioKind::Outage ||
                        run.scenario == ScenarioKind::Limit || run.scenario == ScenarioKind::Hang;
  if (expected || run.errors == 0) return;
  out.push_back(fail(FindingKind::RunErrors, run.label(),
                     fmt::format("{} of {} requests failed ({}) while every instance was up.",
                                 run.errors, run.requests, detail::code_list(run.error_codes))));
}

// An instance that served nothing while the others did (`exempt`: the slow one, whose zero is
// the strategy routing around it).
void check_zero(const RunRecord& run, std::size_t exempt, std::vector<Finding>& out) {
  const Source source = share_source(run);
  std::uint64_t total = 0;
  for (const InstanceRow& row : run.instances)
    total += count_of(row, source);
  if (total == 0) return;
  for (std::size_t i = 0; i < run.instances.size(); ++i) {
    const InstanceRow& row = run.instances[i];
    if (i == exempt || row.killed || count_of(row, source) != 0) continue;
    const std::string view = row.balancer_up
                                 ? fmt::format("the balancer's stats say {} is {}", row.name,
                                               *row.balancer_up ? "up" : "down")
                                 : std::string("its stats could not be read");
    out.push_back(
        fail(FindingKind::InstanceAtZero, run.label(),
             fmt::format("{} served 0 of {} requests while the others took them ({}): it is out of "
                         "the pool or failing its health check ({}). Read the balancer's stats "
                         "before restarting anything.",
                         row.name, total, detail::share_list(run, source), view)));
  }
}

void read_even(const RunRecord& run, std::vector<Finding>& out) {
  const Source source = share_source(run);
  const std::vector<double> s = shares(run, source);
  const double fair = 1.0 / static_cast<double>(s.size());
  const bool even = std::all_of(
      s.begin(), s.end(), [&](double v) { return std::abs(v - fair) <= kEvenTolerance * fair; });
  const bool identical = detail::identical(run);
  const std::string figures = fmt::format("{} ({}), {}", detail::share_list(run, source),
                                          detail::spread(run, source), rate(run.rps));
  if (even) {
    out.push_back(note(FindingKind::EvenShare, run.label(),
                       fmt::format("even share: {}. {}", figures,
                                   identical ? "The instances are identical, so an even share "
                                               "is the right answer here."
                                             : "The instances' delays differ, so an even share "
                                               "is not capacity-aware.")));
  } else {
    out.push_back(note(
        FindingKind::UnevenShare, run.label(),
        fmt::format("uneven share: {}{}.", figures, identical ? " on identical instances" : "")));
  }
}

}  // namespace

std::vector<Finding> read_runs(const std::vector<RunRecord>& runs, Peer peer) {
  std::vector<Finding> out;
  int agreeing = 0, without_backend = 0;
  for (const RunRecord& run : runs) {
    check_sources_of(run, out, agreeing, without_backend);
    check_errors(run, out);
    switch (run.scenario) {
      case ScenarioKind::Even:
        check_zero(run, run.instances.size(), out);
        read_even(run, out);
        break;
      case ScenarioKind::Slow:
        check_zero(run, detail::slow_index(run), out);
        detail::read_slow(run, runs, out);
        break;
      case ScenarioKind::Sticky:
        detail::read_sticky(run, out);
        break;
      case ScenarioKind::H2:
        read_h2(run, out);  // an instance at 0 is its finding, not a failed check
        break;
      case ScenarioKind::Outage:
      case ScenarioKind::Limit:
      case ScenarioKind::Hang:
        break;
    }
  }
  detail::read_outages(runs, out);
  read_limits(runs, out, peer);
  detail::read_hangs(runs, peer, out);
  if (agreeing > 0 && agreeing == static_cast<int>(runs.size())) {
    out.push_back(note(FindingKind::SourcesAgree, "all",
                       fmt::format("/count, x-instance and x-backend agree in all {} runs: the "
                                   "shares are evidence.",
                                   agreeing)));
  }
  if (without_backend > 0) {
    out.push_back(note(FindingKind::NoBackendHeader, "all",
                       fmt::format("the balancer set no x-backend in {} of {} runs: its record "
                                   "could not be checked; the shares rest on /count and "
                                   "x-instance.",
                                   without_backend, runs.size())));
  }
  return out;
}

bool all_checks_hold(const std::vector<Finding>& findings) {
  return std::none_of(findings.begin(), findings.end(),
                      [](const Finding& f) { return f.verdict == Verdict::Fail; });
}

constexpr EnumName<FindingKind> kKindNames[] = {
    {FindingKind::SourcesAgree, "sources-agree"},
    {FindingKind::NoBackendHeader, "no-backend-header"},
    {FindingKind::HeadersDisagree, "headers-disagree"},
    {FindingKind::CountDisagrees, "count-disagrees"},
    {FindingKind::RunErrors, "run-errors"},
    {FindingKind::EvenShare, "even-share"},
    {FindingKind::UnevenShare, "uneven-share"},
    {FindingKind::EvenShareLowThroughput, "even-share-low-throughput"},
    {FindingKind::SlowAbsorbed, "slow-absorbed"},
    {FindingKind::RoutesAroundSlow, "routes-around-slow"},
    {FindingKind::InstanceAtZero, "instance-at-zero"},
    {FindingKind::OutageDetector, "outage-detector"},
    {FindingKind::ErrorShareAboveTraffic, "error-share-above-traffic"},
    {FindingKind::OutageUndetected, "outage-undetected"},
    {FindingKind::SessionSplit, "session-split"},
    {FindingKind::SessionsKept, "sessions-kept"},
    {FindingKind::StickyArithmetic, "sticky-arithmetic"},
    {FindingKind::StickyChance, "sticky-chance"},
    {FindingKind::SweepPoolVsSingle, "sweep-pool-vs-single"},
    {FindingKind::LimitRoutedAround, "limit-routed-around"},
    {FindingKind::LimitFailures, "limit-failures"},
    {FindingKind::LimitSummary, "limit-summary"},
    {FindingKind::HangDamage, "hang-damage"},
    {FindingKind::HangLateAnswers, "hang-late-answers"},
    {FindingKind::H2PerRequest, "h2-per-request"},
    {FindingKind::H2FollowsConnections, "h2-follows-connections"},
    {FindingKind::H2Uneven, "h2-uneven"}};
static_assert(in_enum_order(kKindNames));

std::string_view kind_name(FindingKind kind) {
  return name_of(kKindNames, kind);
}

}  // namespace stampede::lab
