#include "loadgen/compare.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "core/enum_names.h"
#include "core/units.h"
#include "h2/error_codes.h"
#include "loadgen/compare_stats.h"

namespace stampede::loadgen {
namespace {

double ms(std::int64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

std::uint64_t total(const CodeCounts& counts) {
  std::uint64_t n = 0;
  for (const auto& [code, count] : counts)
    n += count;
  return n;
}

// Counts by error code's name (codes the RFC does not define add up under "UNKNOWN").
CodeCounts named(const std::map<std::uint32_t, std::uint64_t>& by_code) {
  CodeCounts out;
  for (const auto& [code, n] : by_code)
    out[std::string(h2::error_code_name(code))] += n;
  return out;
}

// A side's HTTP/2 figures over all its runs; nullopt for an HTTP/1.1 side.
std::optional<H2Totals> h2_totals(const Side& side) {
  if (side.runs.empty() || !side.runs.front().h2) return std::nullopt;
  H2Totals t;
  t.streams = side.runs.front().h2->streams;
  t.streams_used_min = t.streams_used_max = side.runs.front().h2->streams_used;
  for (const RunFigures& run : side.runs) {
    if (!run.h2) continue;  // a side read from a file never mixes protocols (add_run)
    t.streams_used_min = std::min(t.streams_used_min, run.h2->streams_used);
    t.streams_used_max = std::max(t.streams_used_max, run.h2->streams_used);
    for (const auto& [code, n] : run.h2->rst_stream)
      t.rst_stream[code] += n;
    for (const auto& [code, n] : run.h2->goaway)
      t.goaway[code] += n;
  }
  return t;
}

// The figure of `metric` in the unit its row shows (error rate in %).
double figure(const RunFigures& f, Metric metric) {
  switch (metric) {
    case Metric::Rps:
      return f.rps;
    case Metric::ErrorRate:
      return f.error_rate * 100;
    case Metric::P50:
      return f.p50_ms;
    case Metric::P90:
      return f.p90_ms;
    case Metric::P99:
      return f.p99_ms;
    case Metric::Max:
      return f.max_ms;
    case Metric::RstStream:
      return f.h2 ? static_cast<double>(total(f.h2->rst_stream)) : 0;
    case Metric::Goaway:
      return f.h2 ? static_cast<double>(total(f.h2->goaway)) : 0;
  }
  return 0;
}

std::vector<double> column(const Side& side, Metric metric) {
  std::vector<double> out;
  for (const RunFigures& f : side.runs)
    out.push_back(figure(f, metric));
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::optional<double> change_of(Metric metric, double baseline, double current) {
  if (metric == Metric::ErrorRate) return current - baseline;
  if (baseline == 0) return current == 0 ? std::optional<double>(0) : std::nullopt;
  return (current - baseline) / baseline * 100;
}

Row row_of(const Side& baseline, const Side& current, Metric metric, const CompareParams& params) {
  const std::vector<double> a = column(baseline, metric), b = column(current, metric);
  Row row;
  row.metric = metric;
  row.baseline = median(a);
  row.current = median(b);
  row.change = change_of(metric, row.baseline, row.current);
  const bool higher = row.current > row.baseline;
  // Lower throughput is worse; more of anything else (latency, errors, resets, GOAWAYs) is.
  row.worse = metric == Metric::Rps ? !higher && row.current != row.baseline : higher;
  if (a.size() == 1 && b.size() == 1) {
    row.verdict = Verdict::OneRunEach;
    return row;
  }
  if (smallest_p(a.size(), b.size()) >= kAlpha) {
    row.verdict = Verdict::TooFewRuns;
    return row;
  }
  row.p_value = mann_whitney_p(a, b);
  // An undefined relative change (from 0 to something) is as large as a change can be.
  const bool large = !row.change || std::abs(*row.change) >= params.min_change;
  row.verdict = *row.p_value < kAlpha && large ? Verdict::Changed : Verdict::NoChange;
  return row;
}

std::vector<std::string> differences(const Side& baseline, const Side& current) {
  std::vector<std::string> out;
  std::set<std::string> keys;
  for (const auto& [key, value] : baseline.identity.items())
    keys.insert(key);
  for (const auto& [key, value] : current.identity.items())
    keys.insert(key);
  for (const std::string& key : keys) {
    const auto shown = [&](const RunIdentity& id) {
      const auto it = id.find(key);
      return it == id.end() ? std::string("none") : it->dump();
    };
    const std::string a = shown(baseline.identity), b = shown(current.identity);
    if (a == b) continue;
    out.push_back(
        fmt::format("{} differs: {} in {}, {} in {}", key, a, baseline.name, b, current.name));
  }
  return out;
}

constexpr EnumName<Metric> kMetricNames[] = {{Metric::Rps, "rps"},
                                             {Metric::ErrorRate, "errors"},
                                             {Metric::P50, "p50"},
                                             {Metric::P90, "p90"},
                                             {Metric::P99, "p99"},
                                             {Metric::Max, "max"},
                                             {Metric::RstStream, "rst_stream"},
                                             {Metric::Goaway, "goaway"}};
static_assert(in_enum_order(kMetricNames));

Expected<Metric> metric_named(std::string_view name) {
  if (auto m = parse_name(kMetricNames, name)) return *m;
  return make_error(fmt::format("--fail-on: unknown metric '{}' ({})", std::string(name),
                                joined_names(kMetricNames, ", ", ", ")));
}

Expected<FailLimit> parse_limit(std::string_view part) {
  const auto bad = [&](const char* why) {
    return make_error(
        fmt::format("--fail-on: '{}' {} (expected METRIC:+N% or METRIC:-N%, "
                    "e.g. p99:+10%)",
                    std::string(part), why));
  };
  const std::size_t colon = part.find(':');
  if (colon == std::string_view::npos) return bad("has no ':'");
  auto metric = metric_named(part.substr(0, colon));
  if (!metric) return metric.error();
  std::string_view value = part.substr(colon + 1);
  if (value.empty() || (value[0] != '+' && value[0] != '-')) return bad("needs a sign, + or -");
  if (value.size() < 2 || value.back() != '%') return bad("needs a % after the number");
  auto number = parse_number(value.substr(1, value.size() - 2));
  if (!number || *number == 0 || *number > 1e6) return bad("needs a number above 0");
  return FailLimit{*metric, value[0] == '-' ? -*number : *number};
}

}  // namespace

RunFigures figures_of(const RunResult& r) {
  RunFigures f;
  f.requests = r.total_requests;
  f.rps = r.effective_rps();
  f.error_rate = r.total_requests == 0
                     ? 0
                     : static_cast<double>(r.total_errors) / static_cast<double>(r.total_requests);
  f.p50_ms = ms(r.latency.percentile(50));
  f.p90_ms = ms(r.latency.percentile(90));
  f.p99_ms = ms(r.latency.percentile(99));
  f.max_ms = ms(r.latency.max());
  if (r.http2) {
    f.h2 = H2Figures{r.streams, effective_streams(r.h2, r.streams), named(r.h2.rst_stream),
                     named(r.h2.goaway)};
  }
  return f;
}

std::string_view metric_name(Metric metric) {
  return name_of(kMetricNames, metric);
}

Comparison compare(const Side& baseline, const Side& current, const CompareParams& params) {
  Comparison out;
  out.baseline_runs = baseline.runs.size();
  out.current_runs = current.runs.size();
  for (Metric m : kMetrics)
    out.rows.push_back(row_of(baseline, current, m, params));
  out.baseline_h2 = h2_totals(baseline);
  out.current_h2 = h2_totals(current);
  if (out.baseline_h2 && out.current_h2) {
    for (Metric m : kH2Metrics)
      out.rows.push_back(row_of(baseline, current, m, params));
  }
  out.differences = differences(baseline, current);
  return out;
}

Expected<std::vector<FailLimit>> parse_fail_on(std::string_view text) {
  std::vector<FailLimit> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view part = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (part.empty())
      return make_error("--fail-on: an empty limit (expected e.g. p99:+10%,rps:-5%)");
    auto limit = parse_limit(part);
    if (!limit) return limit.error();
    for (const FailLimit& l : out) {
      if (l.metric == limit->metric) {
        return make_error(fmt::format("--fail-on: {} given twice", metric_name(l.metric)));
      }
    }
    out.push_back(*limit);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<std::string> crossed_limits(const Comparison& comparison,
                                        const std::vector<FailLimit>& limits) {
  std::vector<std::string> out;
  for (const FailLimit& limit : limits) {
    for (const Row& row : comparison.rows) {
      if (row.metric != limit.metric || row.verdict != Verdict::Changed) continue;
      // A change from 0 (undefined in %) crosses any limit in its direction.
      const bool up = row.current > row.baseline;
      const bool crossed = row.change ? (limit.percent > 0 ? *row.change > limit.percent
                                                           : *row.change < limit.percent)
                                      : up == (limit.percent > 0);
      if (!crossed) continue;
      const char* unit = row.metric == Metric::ErrorRate ? " points" : "%";
      out.push_back(fmt::format(
          "{} {} (limit {:+g}{})", metric_name(row.metric),
          row.change ? fmt::format("{:+.1f}{}", *row.change, unit) : std::string("from 0"),
          limit.percent, unit));
    }
  }
  return out;
}

}  // namespace stampede::loadgen
