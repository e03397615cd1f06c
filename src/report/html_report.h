// The HTML report: one self-contained page (inline CSS, inline SVG charts, a few lines of inline
// script for tooltips). It loads nothing: no network, no fonts, no external script or style.
#pragma once

#include <ostream>
#include <string>

#include "core/expected.h"
#include "report/report_data.h"

namespace stampede::report {

// Writes the page for data to out. Every string of data is HTML-escaped. The latency section is
// present when data.latency has a series, the charts over time when data.timeline has a point;
// a report with no data at all says so. Stream errors are left in out's state.
void write_html(const ReportData& data, std::ostream& out);

// Writes the page to path (created or truncated). Fails with "cannot write PATH: REASON".
Expected<void> write_html_file(const ReportData& data, const std::string& path);

}  // namespace stampede::report
