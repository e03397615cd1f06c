// Thresholds for CI (--max-p99, --max-error-rate, --min-rps): checked after the report; a
// crossed one makes the command exit with status 3 ("abort the deployment").
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace stampede::loadgen {

struct RunResult;

struct Thresholds {
  std::optional<double> max_p99_ms;          // the p99 latency (corrected with --rps), ms
  std::optional<double> max_error_rate_pct;  // errors / requests, percent
  std::optional<double> min_rps;             // the effective rate, requests per second

  bool any() const { return max_p99_ms || max_error_rate_pct || min_rps; }
};

// One line per crossed threshold, in the order above, e.g. "p99 12.3 ms > 10 ms",
// "error rate 5.2% > 1%", "rps 812.4 < 1000". Empty when none is crossed. A run without a
// single request crosses --min-rps but neither of the others.
std::vector<std::string> crossed_thresholds(const RunResult& result, const Thresholds& limits);

}  // namespace stampede::loadgen
