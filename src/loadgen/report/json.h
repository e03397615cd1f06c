// The result as one JSON object: loadtest's field names plus ours (docs/output.md).
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

#include "loadgen/runner.h"

namespace stampede::loadgen {

nlohmann::ordered_json to_json(const RunResult& result);

// Writes to_json(result), indented, and a newline.
void write_json_report(const RunResult& result, std::ostream& out);

}  // namespace stampede::loadgen
