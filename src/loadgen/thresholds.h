// Thresholds for CI (--max-p99, --max-error-rate, --min-rps), as the command line parsed them.
// The engine only carries them; loadgen/report/thresholds.h checks them after the report, and a
// crossed one makes the command exit with status 3 ("abort the deployment").
#pragma once

#include <optional>

namespace stampede::loadgen {

struct Thresholds {
  std::optional<double> max_p99_ms;          // the p99 latency (corrected with --rps), ms
  std::optional<double> max_error_rate_pct;  // errors / requests, percent
  std::optional<double> min_rps;             // the effective rate, requests per second

  bool any() const { return max_p99_ms || max_error_rate_pct || min_rps; }
};

}  // namespace stampede::loadgen
