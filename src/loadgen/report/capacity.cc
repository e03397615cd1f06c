#include "loadgen/report/capacity.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "core/enum_names.h"
#include "report/axis.h"
#include "report/html_report.h"

namespace stampede::loadgen {
namespace {

constexpr EnumName<SearchEnd> kEndNames[] = {{SearchEnd::Found, "found"},
                                             {SearchEnd::FirstStepFailed, "first_step_failed"},
                                             {SearchEnd::Ceiling, "ceiling"}};

// A search that did not end by itself (Running, Stopped) says why it stopped.
std::string_view outcome_name(const CapacityResult& r) {
  if (auto name = find_name(kEndNames, r.end)) return *name;
  return r.generator_limited ? "generator_limit" : "interrupted";
}

std::string rate(double rps) {
  return fmt::format("{:.1f} req/s", rps);
}

std::string limits_text(const CapacityParams& p) {
  return fmt::format("p99 <= {} ms (corrected), errors <= {}%, rate held >= {:.0f}% of asked",
                     p.max_p99_ms, p.max_error_rate_pct, kHeldFraction * 100);
}

std::string failing_step_reason(const CapacityResult& r, double rps) {
  for (const CapacityStep& s : r.steps) {
    if (s.asked_rps == rps && s.verdict != StepVerdict::Pass) return s.reason;
  }
  return {};
}

}  // namespace

std::string capacity_sentence(const CapacityResult& r) {
  switch (r.end) {
    case SearchEnd::Found:
      return fmt::format("Capacity: {} (the last passing step); {} failed ({}).",
                         rate(*r.last_pass), rate(*r.first_fail),
                         failing_step_reason(r, *r.first_fail));
    case SearchEnd::FirstStepFailed:
      return fmt::format("No capacity found: even the first step, {}, failed ({}).",
                         rate(*r.first_fail), failing_step_reason(r, *r.first_fail));
    case SearchEnd::Ceiling:
      return fmt::format("Capacity: at least {}, the highest rate the generator asks.",
                         rate(*r.last_pass));
    case SearchEnd::Running:
    case SearchEnd::Stopped:
      break;
  }
  const std::string known =
      r.last_pass ? fmt::format(" The capacity is at least {}.", rate(*r.last_pass)) : "";
  if (r.generator_limited) {
    return fmt::format(
        "No capacity: the generator, not the server, was the limit at {} ({}); more --cores or "
        "more machines (docs/distributed.md) are needed to measure further.{}",
        rate(r.steps.back().asked_rps), r.steps.back().reason, known);
  }
  return "Search interrupted." + known;
}

void write_capacity_text(const CapacityResult& r, std::ostream& out) {
  fmt::print(out, "\nCapacity search:     {}\n", r.url);
  fmt::print(out, "Connections:         {}{}\n", r.clients, r.keep_alive ? " (keep-alive)" : "");
  fmt::print(out, "Limits:              {}\n", limits_text(r.params));
  fmt::print(out, "Resolution:          {}%\n", r.params.resolution * 100);
  if (r.probe_rps) fmt::print(out, "Closed-loop probe:   {}\n", rate(*r.probe_rps));
  fmt::print(out, "\n{:>4} {:>11} {:>11} {:>7} {:>9} {:>9} {:>9} {:>8}  {}\n", "step", "asked/s",
             "held/s", "time s", "p50 ms", "p99 ms", "p99.9 ms", "errors", "verdict");
  std::size_t n = 0;
  for (const CapacityStep& s : r.steps) {
    fmt::print(out, "{:>4} {:>11.1f} {:>11.1f} {:>7.1f} {:>9.2f} {:>9.2f} {:>9.2f} {:>8}  {}\n",
               ++n, s.asked_rps, s.held_rps, s.seconds, s.p50_ms, s.p99_ms, s.p999_ms, s.errors,
               verdict_name(s.verdict));
  }
  fmt::print(out, "\n{}\n", capacity_sentence(r));
}

nlohmann::ordered_json capacity_to_json(const CapacityResult& r) {
  nlohmann::ordered_json j;
  j["url"] = r.url;
  j["connections"] = r.clients;
  j["keepAlive"] = r.keep_alive;
  j["limits"] = {{"maxP99Ms", r.params.max_p99_ms},
                 {"maxErrorRatePct", r.params.max_error_rate_pct},
                 {"minHeldPct", kHeldFraction * 100}};
  j["resolutionPct"] = r.params.resolution * 100;
  j["probeRps"] = r.probe_rps ? nlohmann::ordered_json(*r.probe_rps) : nullptr;
  j["outcome"] = outcome_name(r);
  j["capacityRps"] = r.last_pass ? nlohmann::ordered_json(*r.last_pass) : nullptr;
  j["firstFailingRps"] = r.first_fail ? nlohmann::ordered_json(*r.first_fail) : nullptr;
  j["summary"] = capacity_sentence(r);
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const CapacityStep& s : r.steps) {
    steps.push_back({{"askedRps", s.asked_rps},
                     {"heldRps", s.held_rps},
                     {"seconds", s.seconds},
                     {"requests", s.requests},
                     {"errors", s.errors},
                     {"p50Ms", s.p50_ms},
                     {"p99Ms", s.p99_ms},
                     {"p999Ms", s.p999_ms},
                     {"verdict", verdict_name(s.verdict)},
                     {"reason", s.reason}});
  }
  j["steps"] = std::move(steps);
  return j;
}

void write_capacity_json(const CapacityResult& result, std::ostream& out) {
  out << capacity_to_json(result).dump(2) << '\n';
}

namespace {

// p99 (and p50) against the rate asked, the steps sorted by rate, and the limit dashed across.
report::Figure knee_figure(const CapacityResult& r) {
  std::vector<const CapacityStep*> sorted;
  for (const CapacityStep& s : r.steps)
    sorted.push_back(&s);
  std::sort(sorted.begin(), sorted.end(), [](const CapacityStep* a, const CapacityStep* b) {
    return a->asked_rps < b->asked_rps;
  });
  report::ChartSeries p99{"p99 (corrected)", "#ea580c", {}};
  report::ChartSeries p50{"p50 (corrected)", "#2563eb", {}};
  report::ChartSeries limit{"p99 limit", "#dc2626", {}, true};
  for (const CapacityStep* s : sorted) {
    p99.points.emplace_back(s->asked_rps, s->p99_ms);
    p50.points.emplace_back(s->asked_rps, s->p50_ms);
  }
  if (!sorted.empty()) {
    limit.points = {{sorted.front()->asked_rps, r.params.max_p99_ms},
                    {sorted.back()->asked_rps, r.params.max_p99_ms}};
  }
  report::Figure f;
  f.caption = "p99 against rate";
  f.note = "Corrected latency of each step against the rate it asked; the knee is the capacity.";
  f.chart.label = "p99 latency against the rate asked";
  f.chart.x_label = std::string("rate asked (req/s)");
  f.chart.x_unit = std::string("req/s");
  f.chart.y_label = std::string("latency (ms)");
  f.chart.y_unit = std::string("ms");
  f.chart.series = {std::move(p99), std::move(p50), std::move(limit)};
  return f;
}

report::Table step_table(const CapacityResult& r) {
  report::Table t;
  t.title = "Steps, in the order run";
  t.header = {"step",   "asked req/s", "held req/s", "seconds", "p50 ms",
              "p99 ms", "p99.9 ms",    "errors",     "verdict", "why"};
  std::size_t n = 0;
  for (const CapacityStep& s : r.steps) {
    t.rows.push_back({std::to_string(++n), fmt::format("{:.1f}", s.asked_rps),
                      fmt::format("{:.1f}", s.held_rps), fmt::format("{:.1f}", s.seconds),
                      fmt::format("{:.2f}", s.p50_ms), fmt::format("{:.2f}", s.p99_ms),
                      fmt::format("{:.2f}", s.p999_ms), std::to_string(s.errors),
                      std::string(verdict_name(s.verdict)), s.reason});
  }
  return t;
}

}  // namespace

report::ReportData capacity_report_data(const CapacityResult& r) {
  report::ReportData d;
  d.title = "stampede capacity search";
  d.subtitle = fmt::format("{} · {} connection{}{}", r.url, r.clients, r.clients == 1 ? "" : "s",
                           r.keep_alive ? " · keep-alive" : "");
  d.findings.push_back(capacity_sentence(r));
  d.summary.push_back({"capacity", r.last_pass ? rate(*r.last_pass) : "none"});
  d.summary.push_back({"first failing", r.first_fail ? rate(*r.first_fail) : "none"});
  d.summary.push_back({"limits", limits_text(r.params)});
  d.summary.push_back({"resolution", report::format_number(r.params.resolution * 100) + "%"});
  d.summary.push_back({"steps", std::to_string(r.steps.size())});
  if (!r.steps.empty()) d.figures.push_back(knee_figure(r));
  d.tables.push_back(step_table(r));
  return d;
}

Expected<void> write_capacity_html(const CapacityResult& result, const std::string& path) {
  return report::write_html_file(capacity_report_data(result), path);
}

}  // namespace stampede::loadgen
