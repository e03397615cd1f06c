// Classic Prometheus histogram buckets for latency, filled from a Histogram: numbers in, numbers
// out (the exposition text is written above, in metrics/ and loadgen/report/).
//
// The layout: upper bounds 10^(k/120) seconds from 10 us to 100 s (k = -600..240, 841 finite
// bounds), then +Inf. Adjacent bounds differ by the ratio r = 10^(1/120) = 1.0194. Prometheus's
// histogram_quantile() finds the bucket (a, r*a] holding the quantile's rank and interpolates
// linearly inside it, so its answer lies in that bucket; Histogram::percentile() reports a value
// in the same bucket (each HDR bucket is counted under the bound at or above the value
// percentile() would report for it). Both are in (a, r*a], so they differ by less than
// (r - 1) * a < 1.94% of stampede's own figure, for any distribution between 10 us and 100 s.
// A ratio of 1.04 would only bound the error by 4%; the 2% bound costs about 840 series.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "stats/histogram.h"

namespace stampede::stats {

class PrometheusBuckets {
 public:
  static constexpr int kPerDecade = 120;
  static constexpr int kLowestExponent = -600;  // 10^(-600/120) s = 10 us
  static constexpr int kHighestExponent = 240;  // 10^(240/120) s = 100 s
  static constexpr std::size_t kFiniteBounds = kHighestExponent - kLowestExponent + 1;

  PrometheusBuckets();

  // The finite upper bounds, ascending: in ns (what values are compared with) and as the `le`
  // label text in seconds (the same text on every call).
  std::span<const std::int64_t> bounds_ns() const { return bounds_ns_; }
  std::span<const std::string> labels() const { return labels_; }

  // Cumulative counts, one per finite bound and a last one for +Inf (= h.count()): how many of
  // h's values are at or below each bound, where each HDR bucket counts at the value
  // Histogram::percentile() reports for it (its highest equivalent, within [min, max]).
  std::vector<std::uint64_t> cumulative(const Histogram& h) const;

 private:
  std::vector<std::int64_t> bounds_ns_;
  std::vector<std::string> labels_;
};

// Prometheus's histogram_quantile() over cumulative counts (the last is +Inf), with bounds in
// seconds: what a query returns, for tests and docs. q in [0, 1]; NaN for an empty histogram.
double prometheus_quantile(double q, std::span<const double> bounds_s,
                           std::span<const std::uint64_t> cumulative);

}  // namespace stampede::stats
