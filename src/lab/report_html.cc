// The HTML report (report.h): the lab's result in the generator's report machinery.
#include <fmt/format.h>

#include "lab/report.h"
#include "lab/tables.h"
#include "report/html_report.h"

namespace stampede::lab {

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
