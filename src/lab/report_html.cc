// The HTML report (report.h): the lab's result in the generator's report machinery.
#include <fmt/format.h>

#include "lab/report.h"
#include "lab/tables.h"
#include "loadgen/report/sweep.h"
#include "report/html_report.h"

namespace stampede::lab {
namespace {

// Throughput and latency against connections: the pool (through the balancer) and the single
// instance on the same axes.
void add_sweep_figures(const SweepRecord& sweep, report::ReportData& data) {
  const std::string single = "instance " + sweep.instance;
  report::ChartSpec rate =
      loadgen::connections_chart("Sweep throughput", "requests per second", "req/s");
  rate.series = {loadgen::step_series("pool", "#2563eb", sweep.pool, &loadgen::SweepStep::rps),
                 loadgen::step_series(single, "#ea580c", sweep.single, &loadgen::SweepStep::rps)};
  data.figures.push_back({"Sweep: throughput against connections",
                          "The pool through the balancer, and one instance alone.", rate});
  report::ChartSpec latency = loadgen::connections_chart("Sweep latency", "latency (ms)", "ms");
  latency.series = {
      loadgen::step_series("pool p50", "#2563eb", sweep.pool, &loadgen::SweepStep::p50_ms),
      loadgen::step_series("pool p99", "#60a5fa", sweep.pool, &loadgen::SweepStep::p99_ms),
      loadgen::step_series(single + " p50", "#ea580c", sweep.single, &loadgen::SweepStep::p50_ms),
      loadgen::step_series(single + " p99", "#fdba74", sweep.single, &loadgen::SweepStep::p99_ms)};
  data.figures.push_back(
      {"Sweep: latency against connections", "Median and 99th percentile at each step.", latency});
}

}  // namespace

report::ReportData to_report_data(const LabResult& result) {
  const LabConfig& c = result.config;
  report::ReportData data;
  data.title = "stampede lab";
  data.subtitle = fmt::format("{} instances behind {} · {} connections · {:.1f} s per run",
                              c.instances.size(), result.balancer, c.load.connections,
                              std::chrono::duration<double>(c.load.duration).count());
  std::size_t failed = 0;
  for (const Finding& f : result.findings)
    failed += f.verdict == Verdict::Fail ? 1 : 0;
  data.summary = {
      {"verdict", failed == 0 ? "every check holds" : fmt::format("{} checks failed", failed)},
      {"runs", std::to_string(result.runs.size())},
      {"wall time", fmt::format("{:.1f} s", result.wall_seconds)},
      {"balancer", result.balancer}};
  for (std::size_t i = 0; i < c.instances.size() && i < result.addresses.size(); ++i) {
    data.summary.push_back(
        {"instance " + c.instances[i].name,
         fmt::format("{} (delay {} ms)", result.addresses[i], c.instances[i].delay.count())});
  }
  for (const RunRecord& run : result.runs) {
    if (!run.latency.empty()) data.latency.push_back({run.label(), run.latency});
  }
  if (result.sweep) add_sweep_figures(*result.sweep, data);
  data.tables = scenario_tables(result);
  for (Verdict verdict : {Verdict::Fail, Verdict::Note}) {
    for (const Finding& f : result.findings) {
      if (f.verdict != verdict) continue;
      data.findings.push_back(
          fmt::format("{} {}: {}", verdict == Verdict::Fail ? "FAIL" : "note", f.scope, f.text));
    }
  }
  return data;
}

Expected<void> write_html(const LabResult& result, const std::string& path) {
  return report::write_html_file(to_report_data(result), path);
}

}  // namespace stampede::lab
