// The lab's reports over one LabResult: text (the default, for people), JSON (--json, for
// machines; schema in docs/lab.md) and HTML (--html FILE, through src/report).
#pragma once

#include <ostream>
#include <string>

#include "core/expected.h"
#include "lab/lab.h"
#include "report/report_data.h"

namespace stampede::lab {

// Tables per scenario, the findings (FAIL lines first marked), and a last line with the verdict.
void write_text(const LabResult& result, std::ostream& out);

// The whole result as one JSON document, followed by a newline.
void write_json(const LabResult& result, std::ostream& out);

// The result mapped into the HTML report's data: tables, findings, one latency series per run.
report::ReportData to_report_data(const LabResult& result);
Expected<void> write_html(const LabResult& result, const std::string& path);

}  // namespace stampede::lab
