// --html FILE: a RunResult as a self-contained HTML page (src/report): the summary, the latency
// percentile distribution (corrected and uncorrected with --rps), the timeline, and with --http2
// the HTTP/2 table (the text report's lines: h2_stats.h).
#pragma once

#include <string>

#include "core/expected.h"
#include "loadgen/runner.h"
#include "report/report_data.h"

namespace stampede::loadgen {

// The report's data. Latencies in ms; a timeline row where no request ended has NaN percentiles
// (a gap in the chart); rates are per second of the time the row covers (TimelineRow::covered_s).
// `findings` are shown as is (e.g. crossed thresholds).
report::ReportData to_report_data(const RunResult& result,
                                  const std::vector<std::string>& findings = {});

// Writes the page to path. Fails with "cannot write PATH: REASON".
Expected<void> write_html_report(const RunResult& result, const std::string& path,
                                 const std::vector<std::string>& findings = {});

}  // namespace stampede::loadgen
