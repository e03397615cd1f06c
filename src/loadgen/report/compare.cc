#include "loadgen/report/compare.h"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "core/enum_names.h"
#include "loadgen/compare_stats.h"
#include "loadgen/report/json.h"
#include "loadgen/report/text.h"

namespace stampede::loadgen {
namespace {

using Json = nlohmann::ordered_json;

constexpr EnumName<Metric> kMetricLabels[] = {{Metric::Rps, "req/s"},
                                              {Metric::ErrorRate, "errors %"},
                                              {Metric::P50, "p50 ms"},
                                              {Metric::P90, "p90 ms"},
                                              {Metric::P99, "p99 ms"},
                                              {Metric::Max, "max ms"},
                                              {Metric::RstStream, "RST_STREAM"},
                                              {Metric::Goaway, "GOAWAY"}};
static_assert(in_enum_order(kMetricLabels));

std::string_view label(Metric metric) {
  return name_of(kMetricLabels, metric);
}

// "slower"/"faster", "higher"/"lower", "more errors"/"fewer errors".
const char* direction(const Row& row) {
  const bool up = row.current > row.baseline;
  switch (row.metric) {
    case Metric::Rps:
      return up ? "higher" : "lower";
    case Metric::ErrorRate:
      return up ? "more errors" : "fewer errors";
    case Metric::RstStream:
      return up ? "more resets" : "fewer resets";
    case Metric::Goaway:
      return up ? "more GOAWAYs" : "fewer GOAWAYs";
    default:
      return up ? "slower" : "faster";
  }
}

std::string value_text(Metric metric, double value) {
  if (metric == Metric::Rps) return fmt::format("{:.1f}", value);
  if (metric == Metric::RstStream || metric == Metric::Goaway) {
    // Counts per run: whole, or halfway between two runs' counts (the median of an even number).
    return value == std::floor(value) ? fmt::format("{:.0f}", value) : fmt::format("{:.1f}", value);
  }
  if (metric == Metric::ErrorRate) return fmt::format("{:.2f}", value);
  return fmt::format("{:.3f}", value);
}

std::string change_text(const Row& row) {
  if (!row.change) return "from 0";
  if (row.metric == Metric::ErrorRate) return fmt::format("{:+.2f} pt", *row.change);
  return fmt::format("{:+.1f}%", *row.change);
}

// The runs per side from which a test at kAlpha can find a change.
std::size_t runs_needed() {
  std::size_t n = 2;
  while (smallest_p(n, n) >= kAlpha)
    ++n;
  return n;
}

constexpr EnumName<Verdict> kVerdictKeys[] = {{Verdict::Changed, "changed"},
                                              {Verdict::NoChange, "no change"},
                                              {Verdict::OneRunEach, "cannot tell"},
                                              {Verdict::TooFewRuns, "cannot tell"}};
static_assert(in_enum_order(kVerdictKeys));

std::string_view verdict_key(Verdict verdict) {
  return name_of(kVerdictKeys, verdict);
}

// "12 x CANCEL, 3 x REFUSED_STREAM", or "0".
std::string code_list(const CodeCounts& counts) {
  std::string out;
  for (const auto& [name, n] : counts)
    out += fmt::format("{}{} x {}", out.empty() ? "" : ", ", n, name);
  return out.empty() ? "0" : out;
}

std::string streams_text(const H2Totals& t) {
  const std::string used = t.streams_used_min == t.streams_used_max
                               ? std::to_string(t.streams_used_min)
                               : fmt::format("{} to {}", t.streams_used_min, t.streams_used_max);
  return t.streams_used_max < t.streams ? fmt::format("{} (--streams {})", used, t.streams) : used;
}

const char* side_protocol(const std::optional<H2Totals>& h2) {
  return h2 ? "HTTP/2" : "HTTP/1.1";
}

// The HTTP/2 block under the table: both sides' streams per connection and their RST_STREAM and
// GOAWAY frames by code, summed over each side's runs; one line when only one side is HTTP/2.
void write_h2_block(const Comparison& c, std::ostream& out) {
  if (!c.baseline_h2 && !c.current_h2) return;
  if (!c.baseline_h2 || !c.current_h2) {
    fmt::print(out,
               "\nHTTP/2: the baseline is {}, the current {}: the HTTP/2 figures (streams, "
               "RST_STREAM, GOAWAY) of one side are not compared.\n",
               side_protocol(c.baseline_h2), side_protocol(c.current_h2));
    return;
  }
  const H2Totals &a = *c.baseline_h2, &b = *c.current_h2;
  fmt::print(out, "\nHTTP/2, each side's runs together:\n");
  fmt::print(out, "  {:<20}{:<32}{}\n", "", "baseline", "current");
  fmt::print(out, "  {:<20}{:<32}{}\n", "streams/connection", streams_text(a), streams_text(b));
  fmt::print(out, "  {:<20}{:<32}{}\n", "RST_STREAM received", code_list(a.rst_stream),
             code_list(b.rst_stream));
  fmt::print(out, "  {:<20}{:<32}{}\n", "GOAWAY received", code_list(a.goaway),
             code_list(b.goaway));
}

nlohmann::ordered_json h2_side_json(const std::optional<H2Totals>& h2) {
  if (!h2) return nullptr;
  Json j;
  j["streamsPerConnection"] = h2->streams;
  j["streamsUsedMin"] = h2->streams_used_min;
  j["streamsUsedMax"] = h2->streams_used_max;
  j["rstStream"] = h2->rst_stream;
  j["goaway"] = h2->goaway;
  return j;
}

std::string figures_line(std::size_t index, const RunResult& r) {
  const RunFigures f = figures_of(r);
  return fmt::format("  {:<5}{:>10}{:>11.1f}{:>9.2f}{:>10.3f}{:>10.3f}{:>10.3f}{:>10.3f}\n", index,
                     f.requests, f.rps, f.error_rate * 100, f.p50_ms, f.p90_ms, f.p99_ms, f.max_ms);
}

}  // namespace

std::string verdict_text(const Row& row, const Comparison& c, const CompareParams& params) {
  switch (row.verdict) {
    case Verdict::Changed:
      return fmt::format("significantly {} (p={:.3f})", direction(row), *row.p_value);
    case Verdict::NoChange:
      if (*row.p_value < kAlpha) {
        return fmt::format("no significant change (p={:.3f}, but under {:g}{})", *row.p_value,
                           params.min_change, row.metric == Metric::ErrorRate ? " pt" : "%");
      }
      return fmt::format("no significant change (p={:.2f})", *row.p_value);
    case Verdict::OneRunEach:
      return "cannot tell (one run each: use --repeat)";
    case Verdict::TooFewRuns:
      return fmt::format("cannot tell ({} and {} runs: use --repeat {} or more on each side)",
                         c.baseline_runs, c.current_runs, runs_needed());
  }
  return "";
}

void write_compare_text(const Comparison& c, const CompareParams& params,
                        const std::string& baseline, const std::string& current,
                        std::ostream& out) {
  fmt::print(out, "Baseline: {} ({} run{})\nCurrent:  {} ({} run{})\n", baseline, c.baseline_runs,
             c.baseline_runs == 1 ? "" : "s", current, c.current_runs,
             c.current_runs == 1 ? "" : "s");
  fmt::print(out,
             "Medians of the runs; a change is significant when Mann-Whitney (two-sided, "
             "{:g}%) says so and it is at least {:g}%.\n\n",
             kAlpha * 100, params.min_change);
  fmt::print(out, "  {:<10}{:>12}{:>12}{:>11}  {}\n", "", "baseline", "current", "change",
             "verdict");
  for (const Row& row : c.rows) {
    fmt::print(out, "  {:<10}{:>12}{:>12}{:>11}  {}\n", label(row.metric),
               value_text(row.metric, row.baseline), value_text(row.metric, row.current),
               change_text(row), verdict_text(row, c, params));
  }
  write_h2_block(c, out);
}

nlohmann::ordered_json compare_json(const Comparison& c, const CompareParams& params) {
  Json j;
  j["baselineRuns"] = c.baseline_runs;
  j["currentRuns"] = c.current_runs;
  j["alpha"] = kAlpha;
  j["minChangePercent"] = params.min_change;
  Json rows = Json::array();
  for (const Row& row : c.rows) {
    Json r;
    r["metric"] = std::string(metric_name(row.metric));
    r["baseline"] = row.baseline;
    r["current"] = row.current;
    r["change"] = row.change ? Json(*row.change) : Json(nullptr);
    r["changeUnit"] = row.metric == Metric::ErrorRate ? "points" : "percent";
    r["pValue"] = row.p_value ? Json(*row.p_value) : Json(nullptr);
    r["verdict"] = verdict_key(row.verdict);
    r["worse"] = row.verdict == Verdict::Changed && row.worse;
    r["text"] = verdict_text(row, c, params);
    rows.push_back(std::move(r));
  }
  j["rows"] = std::move(rows);
  j["http2"] = c.baseline_h2 || c.current_h2 ? Json{{"baseline", h2_side_json(c.baseline_h2)},
                                                    {"current", h2_side_json(c.current_h2)}}
                                             : Json(nullptr);
  j["differences"] = c.differences;
  return j;
}

nlohmann::ordered_json repeat_json(const RunResult& combined, const std::vector<RunResult>& runs) {
  Json j = to_json(combined);
  Json list = Json::array();
  for (const RunResult& r : runs)
    list.push_back(to_json(r));
  j["repeat"] = {{"count", runs.size()}, {"runs", std::move(list)}};
  return j;
}

void write_repeat_json(const RunResult& combined, const std::vector<RunResult>& runs,
                       std::ostream& out) {
  out << repeat_json(combined, runs).dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
  out.flush();
}

void write_repeat_text(const RunResult& combined, const std::vector<RunResult>& runs,
                       std::ostream& out) {
  fmt::print(out, "Runs ({}, one after another)\n", runs.size());
  fmt::print(out, "  {:<5}{:>10}{:>11}{:>9}{:>10}{:>10}{:>10}{:>10}\n", "run", "requests", "req/s",
             "errors%", "p50 ms", "p90 ms", "p99 ms", "max ms");
  for (std::size_t i = 0; i < runs.size(); ++i)
    out << figures_line(i + 1, runs[i]);
  fmt::print(out, "\nAll {} runs together:\n", runs.size());
  write_text_report(combined, out);
}

}  // namespace stampede::loadgen
