#include "loadgen/report/html.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/units.h"
#include "report/axis.h"
#include "report/html_report.h"

namespace stampede::loadgen {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string ms_text(std::int64_t ns) {
  return report::format_number(ns_to_ms(ns)) + " ms";
}

report::PercentileSeries series(std::string name, const stats::Histogram& latency) {
  report::PercentileSeries s{std::move(name), {}};
  for (const stats::PercentilePoint& p : latency.percentile_distribution())
    s.points.emplace_back(p.percentile, ns_to_ms(p.value_ns));
  return s;
}

std::vector<report::TimePoint> timeline(const RunResult& r) {
  std::vector<report::TimePoint> points;
  for (const stats::TimelineRow& row : r.timeline) {
    report::TimePoint p;
    p.t_s = row.t_start_s;
    p.sent_rps = row.per_second(row.sent);
    p.completed_rps = row.per_second(row.completed);
    p.errors_4xx = row.per_second(row.errors_4xx);
    p.errors_5xx = row.per_second(row.errors_5xx);
    p.errors_transport = row.per_second(row.errors_transport);
    p.p50_ms = row.has_latency ? ns_to_ms(row.p50_ns) : kNaN;
    p.p99_ms = row.has_latency ? ns_to_ms(row.p99_ns) : kNaN;
    points.push_back(p);
  }
  return points;
}

std::vector<report::KeyValue> summary(const RunResult& r) {
  const double errors_pct = r.total_requests > 0 ? 100.0 * static_cast<double>(r.total_errors) /
                                                       static_cast<double>(r.total_requests)
                                                 : 0;
  std::vector<report::KeyValue> s = {
      {"Requests", report::format_number(static_cast<double>(r.total_requests))},
      {"Errors", report::format_number(static_cast<double>(r.total_errors)) + " (" +
                     report::format_number(errors_pct) + "%)"},
      {"Duration", report::format_number(r.elapsed_seconds()) + " s"},
      {"Throughput", report::format_number(r.effective_rps()) + " req/s"}};
  if (r.rate) {
    s.push_back({"Target rate", report::format_number(r.rate->target_rps) + " req/s, sent " +
                                    report::format_number(r.rate->achieved_rps()) + " req/s" +
                                    (r.target_held() ? "" : " (not held)")});
  }
  const std::string prefix = r.rate ? "Latency (corrected) " : "Latency ";
  for (double p : {50.0, 90.0, 99.0, 99.9})
    s.push_back({prefix + report::percentile_label(p), ms_text(r.latency.percentile(p))});
  s.push_back({prefix + "max", ms_text(r.latency.max())});
  if (r.rate) {
    s.push_back({"Latency (uncorrected) p99", ms_text(r.rate->uncorrected.percentile(99))});
    s.push_back({"Send lag p99 / max", report::format_number(ns_to_ms(r.rate->lag.percentile(99))) +
                                           " / " + ms_text(r.rate->lag.max())});
    s.push_back({"Late requests (> 1 ms) / of them waiting for a connection",
                 report::format_number(static_cast<double>(r.rate->late)) + " / " +
                     report::format_number(static_cast<double>(r.rate->late_waiting))});
  }
  return s;
}

// ab's Connection Times: the phases that were measured, one row each.
report::Table phase_table(const RunResult& r) {
  report::Table t{
      "Request phases (ms)", {"phase", "count", "min", "mean", "p50", "p99", "max"}, {}};
  const auto row = [&t](const char* name, const stats::Histogram& h) {
    if (h.count() == 0) return;
    t.rows.push_back({name, report::format_number(static_cast<double>(h.count())),
                      report::format_number(ns_to_ms(h.min())),
                      report::format_number(h.mean() / 1e6),
                      report::format_number(ns_to_ms(h.percentile(50))),
                      report::format_number(ns_to_ms(h.percentile(99))),
                      report::format_number(ns_to_ms(h.max()))});
  };
  row("connect", r.connect);
  row("TLS handshake", r.tls_handshake);
  row("first byte", r.first_byte);
  return t;
}

report::Table error_table(const char* title, const std::map<std::string, std::uint64_t>& codes) {
  report::Table t{title, {"code", "count"}, {}};
  for (const auto& [code, n] : codes)
    t.rows.push_back({code, report::format_number(static_cast<double>(n))});
  return t;
}

// An --http2 run's figures, worded as in the text report.
report::Table h2_table(const RunResult& r) {
  report::Table t{"HTTP/2", {}, {}};
  for (H2Line& line : h2_lines(r.h2, r.streams))
    t.rows.push_back({std::move(line.key), std::move(line.value)});
  return t;
}

std::string subtitle(const RunResult& r) {
  std::string s = fmt::format("{} · {} connection{}", r.url, r.clients, r.clients == 1 ? "" : "s");
  if (r.rate) s += " · " + report::format_number(r.rate->target_rps) + " req/s";
  if (r.keep_alive) s += " · keep-alive";
  return s;
}

}  // namespace

report::ReportData to_report_data(const RunResult& result,
                                  const std::vector<std::string>& findings) {
  report::ReportData d;
  d.title = "stampede load test";
  d.subtitle = subtitle(result);
  d.summary = summary(result);
  if (result.latency.count() > 0) {
    d.latency.push_back(series(result.rate ? "corrected" : "latency", result.latency));
    if (result.rate) d.latency.push_back(series("uncorrected", result.rate->uncorrected));
  }
  d.timeline = timeline(result);
  if (!result.error_codes.empty()) d.tables.push_back(error_table("Errors", result.error_codes));
  if (!result.local_errors.empty()) {
    d.tables.push_back(
        error_table("Local errors (this machine's limits, not the server's)", result.local_errors));
  }
  if (report::Table phases = phase_table(result); !phases.rows.empty()) {
    d.tables.push_back(std::move(phases));
  }
  if (result.http2) d.tables.push_back(h2_table(result));
  d.findings = findings;
  if (result.rate && !result.target_held()) {
    d.findings.push_back(fmt::format(
        "The target rate was not held: {} req/s achieved for {} asked; {} requests were sent "
        "more than 1 ms late (max {} behind the schedule). {}",
        report::format_number(result.rate->achieved_rps()),
        report::format_number(result.rate->target_rps), result.rate->late,
        ms_text(result.rate->lag.max()), result.late_cause()));
  }
  return d;
}

Expected<void> write_html_report(const RunResult& result, const std::string& path,
                                 const std::vector<std::string>& findings) {
  return report::write_html_file(to_report_data(result, findings), path);
}

}  // namespace stampede::loadgen
