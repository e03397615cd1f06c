#include "loadgen/report/sweep.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "report/axis.h"
#include "report/html_report.h"

namespace stampede::loadgen {
namespace {

constexpr const char* kColors[] = {"#2563eb", "#ea580c", "#16a34a", "#7c3aed"};

report::Table step_table(const SweepResult& sweep) {
  report::Table t{"Steps",
                  {"connections", "requests", "errors", "req/s", "mean ms", "p50 ms", "p90 ms",
                   "p99 ms", "max ms"},
                  {}};
  for (const SweepStep& s : sweep.steps) {
    t.rows.push_back({report::format_number(s.connections),
                      report::format_number(static_cast<double>(s.requests)),
                      report::format_number(static_cast<double>(s.errors)),
                      report::format_number(s.rps), report::format_number(s.mean_ms),
                      report::format_number(s.p50_ms), report::format_number(s.p90_ms),
                      report::format_number(s.p99_ms), report::format_number(s.max_ms)});
  }
  return t;
}

}  // namespace

report::ChartSpec connections_chart(std::string label, std::string y_label, std::string y_unit) {
  return report::line_chart(std::move(label), {"connections", "connections"},
                            {std::move(y_label), std::move(y_unit)});
}

report::ChartSeries step_series(std::string name, std::string color,
                                const std::vector<SweepStep>& steps, double SweepStep::*field) {
  report::ChartSeries s{std::move(name), std::move(color), {}};
  for (const SweepStep& step : steps)
    s.points.emplace_back(step.connections, step.*field);
  return s;
}

void write_sweep_text(const SweepResult& sweep, std::ostream& out) {
  fmt::print(out, "\nConcurrency sweep of {} ({}, {} per step)\n\n", sweep.url,
             sweep.keep_alive ? "keep-alive" : "a connection per request",
             sweep.max_requests > 0 ? fmt::format("{} requests", sweep.max_requests)
                                    : fmt::format("{:g} s", sweep.step_seconds));
  fmt::print(out, "{:>11} {:>9} {:>7} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9}\n", "connections",
             "requests", "errors", "req/s", "mean ms", "p50 ms", "p90 ms", "p99 ms", "max ms");
  for (const SweepStep& s : sweep.steps) {
    fmt::print(out, "{:>11} {:>9} {:>7} {:>10.1f} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f}\n",
               s.connections, s.requests, s.errors, s.rps, s.mean_ms, s.p50_ms, s.p90_ms, s.p99_ms,
               s.max_ms);
  }
  if (sweep.interrupted)
    fmt::print(out, "\nInterrupted: the steps after the last row did not run\n");
  fmt::print(out, "\n{}\n", describe_knee(sweep.steps));
}

nlohmann::ordered_json sweep_step_json(const SweepStep& s, StepFields fields) {
  const bool all = fields == StepFields::All;
  nlohmann::ordered_json j;
  j["connections"] = s.connections;
  j["requests"] = s.requests;
  j["errors"] = s.errors;
  if (all) j["seconds"] = s.seconds;
  j["rps"] = s.rps;
  j["mean_ms"] = s.mean_ms;
  j["p50_ms"] = s.p50_ms;
  if (all) j["p90_ms"] = s.p90_ms;
  j["p99_ms"] = s.p99_ms;
  if (all) j["max_ms"] = s.max_ms;
  return j;
}

nlohmann::ordered_json sweep_to_json(const SweepResult& sweep) {
  nlohmann::ordered_json j;
  j["url"] = sweep.url;
  j["keep_alive"] = sweep.keep_alive;
  j["step_seconds"] = sweep.step_seconds;
  j["max_requests"] = sweep.max_requests;
  j["interrupted"] = sweep.interrupted;
  j["steps"] = nlohmann::ordered_json::array();
  for (const SweepStep& s : sweep.steps)
    j["steps"].push_back(sweep_step_json(s, StepFields::All));
  if (const auto knee = find_knee(sweep.steps)) {
    j["knee"] = {{"connections", sweep.steps[knee->index].connections},
                 {"next_connections", sweep.steps[knee->next].connections},
                 {"throughput_gain", knee->gain}};
  } else {
    j["knee"] = nullptr;
  }
  j["finding"] = describe_knee(sweep.steps);
  return j;
}

void write_sweep_json(const SweepResult& sweep, std::ostream& out) {
  out << sweep_to_json(sweep).dump(2) << "\n";
}

report::Figure throughput_figure(const std::vector<NamedSteps>& sweeps) {
  report::ChartSpec spec =
      connections_chart("Throughput against connections", "requests per second", "req/s");
  for (std::size_t i = 0; i < sweeps.size(); ++i) {
    spec.series.push_back(step_series(sweeps[i].name, kColors[i % std::size(kColors)],
                                      *sweeps[i].steps, &SweepStep::rps));
  }
  return {"Throughput", "Completed requests per second at each step.", std::move(spec)};
}

report::Figure latency_figure(const std::vector<NamedSteps>& sweeps) {
  report::ChartSpec spec = connections_chart("Latency against connections", "latency (ms)", "ms");
  for (std::size_t i = 0; i < sweeps.size(); ++i) {
    const std::string prefix = sweeps.size() > 1 ? sweeps[i].name + " " : std::string();
    const std::string color = kColors[(2 * i) % std::size(kColors)];
    spec.series.push_back(step_series(prefix + "p50", color, *sweeps[i].steps, &SweepStep::p50_ms));
    spec.series.push_back(step_series(prefix + "p99", kColors[(2 * i + 1) % std::size(kColors)],
                                      *sweeps[i].steps, &SweepStep::p99_ms));
  }
  return {"Latency", "Median and 99th percentile at each step.", std::move(spec)};
}

report::ReportData sweep_report_data(const SweepResult& sweep) {
  report::ReportData d;
  d.title = "stampede concurrency sweep";
  d.subtitle = sweep.url + (sweep.keep_alive ? " · keep-alive" : "");
  d.findings.push_back(describe_knee(sweep.steps));
  d.summary = {{"Steps", report::format_number(static_cast<double>(sweep.steps.size()))},
               {"Per step",
                sweep.max_requests > 0
                    ? report::format_number(static_cast<double>(sweep.max_requests)) + " requests"
                    : report::format_number(sweep.step_seconds) + " s"}};
  const std::vector<NamedSteps> one = {{"req/s", &sweep.steps}};
  d.figures.push_back(throughput_figure(one));
  d.figures.push_back(latency_figure(one));
  d.tables.push_back(step_table(sweep));
  return d;
}

Expected<void> write_sweep_html(const SweepResult& sweep, const std::string& path) {
  return report::write_html_file(sweep_report_data(sweep), path);
}

}  // namespace stampede::loadgen
