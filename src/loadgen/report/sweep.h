// The concurrency sweep's reports (loadgen/sweep.h): a text table with the knee, the same as one
// JSON document, and the HTML page (src/report) with throughput and latency against connections.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/expected.h"
#include "loadgen/sweep.h"
#include "report/report_data.h"

namespace stampede::loadgen {

// One line per step (connections, requests, errors, req/s, mean, p50, p90, p99, max), then the
// knee sentence (describe_knee).
void write_sweep_text(const SweepResult& sweep, std::ostream& out);

// {"url", "keep_alive", "step_seconds", "max_requests", "interrupted",
//  "steps": [{"connections", "requests", "errors", "seconds", "rps", "mean_ms", "p50_ms",
//             "p90_ms", "p99_ms", "max_ms"}],
//  "knee": {"connections", "next_connections", "throughput_gain"} or null, "finding": "..."}
nlohmann::ordered_json sweep_to_json(const SweepResult& sweep);
// One of those steps; the lab's report keeps only connections, requests, errors, rps, mean_ms,
// p50_ms and p99_ms (in that order).
enum class StepFields { All, Lab };
nlohmann::ordered_json sweep_step_json(const SweepStep& step, StepFields fields);
void write_sweep_json(const SweepResult& sweep, std::ostream& out);

// The page's data: a summary, the knee as its finding, throughput and latency (p50, p99) against
// connections, and the step table.
report::ReportData sweep_report_data(const SweepResult& sweep);
Expected<void> write_sweep_html(const SweepResult& sweep, const std::string& path);

// An empty chart against connections (the x axis), `y_label` in `y_unit`; and one series of it,
// `field` of each step against its connection count. The lab's side-by-side charts use them too.
report::ChartSpec connections_chart(std::string label, std::string y_label, std::string y_unit);
report::ChartSeries step_series(std::string name, std::string color,
                                const std::vector<SweepStep>& steps, double SweepStep::*field);

// The charts of a sweep page: throughput (and latency) against connections, one series per
// (name, steps).
struct NamedSteps {
  std::string name;
  const std::vector<SweepStep>* steps = nullptr;
};
report::Figure throughput_figure(const std::vector<NamedSteps>& sweeps);
report::Figure latency_figure(const std::vector<NamedSteps>& sweeps);

}  // namespace stampede::loadgen
