#include "loadgen/report/thresholds.h"

#include <fmt/format.h>

#include "loadgen/runner.h"

namespace stampede::loadgen {
namespace {

// At most 3 decimals, without trailing zeros: 12.3, 10, 0.125.
std::string plain_number(double v) {
  std::string s = fmt::format("{:.3f}", v);
  while (s.back() == '0')
    s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

}  // namespace

std::vector<std::string> crossed_thresholds(const RunResult& r, const Thresholds& limits) {
  std::vector<std::string> crossed;
  if (limits.max_p99_ms && r.total_requests > 0) {
    const double p99 = static_cast<double>(r.latency.percentile(99)) / 1e6;
    if (p99 > *limits.max_p99_ms) {
      crossed.push_back("p99 " + plain_number(p99) + " ms > " + plain_number(*limits.max_p99_ms) +
                        " ms");
    }
  }
  if (limits.max_error_rate_pct && r.total_requests > 0) {
    const double rate =
        100.0 * static_cast<double>(r.total_errors) / static_cast<double>(r.total_requests);
    if (rate > *limits.max_error_rate_pct) {
      crossed.push_back("error rate " + plain_number(rate) + "% > " +
                        plain_number(*limits.max_error_rate_pct) + "%");
    }
  }
  if (limits.min_rps && r.effective_rps() < *limits.min_rps) {
    crossed.push_back("rps " + plain_number(r.effective_rps()) + " < " +
                      plain_number(*limits.min_rps));
  }
  return crossed;
}

}  // namespace stampede::loadgen
