// The CI thresholds (loadgen/thresholds.h) checked against a run's result, after the report.
#pragma once

#include <string>
#include <vector>

#include "loadgen/runner.h"
#include "loadgen/thresholds.h"

namespace stampede::loadgen {

// One line per crossed threshold, in the order of Thresholds, e.g. "p99 12.3 ms > 10 ms",
// "error rate 5.2% > 1%", "rps 812.4 < 1000". Empty when none is crossed. A run without a
// single request crosses --min-rps but neither of the others.
std::vector<std::string> crossed_thresholds(const RunResult& result, const Thresholds& limits);

}  // namespace stampede::loadgen
