// The text report, in loadtest's format and order, with sub-millisecond percentiles and 99.9%.
#pragma once

#include <ostream>

#include "loadgen/runner.h"

namespace stampede::loadgen {

// Writes the report (starting with an empty line, as loadtest does) to `out`.
void write_text_report(const RunResult& result, std::ostream& out);

}  // namespace stampede::loadgen
