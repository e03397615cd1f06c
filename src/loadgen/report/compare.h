// The reports of `stampede compare` (the table of a Comparison, as text or JSON) and of a run
// made N times (--repeat: each run's figures in one line, then the combined result). Write to the
// stream given; no other output. docs/compare.md shows both.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loadgen/compare.h"
#include "loadgen/runner.h"

namespace stampede::loadgen {

// The verdict of `row` in words: "significantly slower (p=0.008)", "no significant change
// (p=0.42)", "cannot tell (one run each: use --repeat)", ...
std::string verdict_text(const Row& row, const Comparison& comparison, const CompareParams& params);

// The table: one row per metric with both medians, the change and the verdict.
void write_compare_text(const Comparison& comparison, const CompareParams& params,
                        const std::string& baseline, const std::string& current, std::ostream& out);

// The same as one JSON object (compare --json; docs/compare.md).
nlohmann::ordered_json compare_json(const Comparison& comparison, const CompareParams& params);

// --repeat N, N > 1: the combined result's JSON (the keys of a single run's) with "repeat":
// {"count": N, "runs": [each run's JSON]}.
nlohmann::ordered_json repeat_json(const RunResult& combined, const std::vector<RunResult>& runs);

// Writes repeat_json, indented, and a newline (bytes that are not UTF-8 replaced, as the single
// run's write_json_report does).
void write_repeat_json(const RunResult& combined, const std::vector<RunResult>& runs,
                       std::ostream& out);

// --repeat N, N > 1: one line of figures per run, then the combined result's text report.
void write_repeat_text(const RunResult& combined, const std::vector<RunResult>& runs,
                       std::ostream& out);

}  // namespace stampede::loadgen
