// The capacity search's reports (--find-max): a text table, JSON (docs/capacity.md has the
// schema) and a self-contained HTML page with the p99 against the rate asked (the knee).
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/expected.h"
#include "loadgen/capacity.h"
#include "report/report_data.h"

namespace stampede::loadgen {

// The outcome in one sentence: the capacity (the last passing rate and the first failing one),
// or why there is none.
std::string capacity_sentence(const CapacityResult& result);

// The limits, the steps in the order run (asked, held, p50/p99/p99.9 corrected, errors,
// verdict), then capacity_sentence().
void write_capacity_text(const CapacityResult& result, std::ostream& out);

nlohmann::ordered_json capacity_to_json(const CapacityResult& result);
// capacity_to_json(result), indented, and a newline.
void write_capacity_json(const CapacityResult& result, std::ostream& out);

report::ReportData capacity_report_data(const CapacityResult& result);
// Writes the page to path. Fails with "cannot write PATH: REASON".
Expected<void> write_capacity_html(const CapacityResult& result, const std::string& path);

}  // namespace stampede::loadgen
