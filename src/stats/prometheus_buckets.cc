#include "stats/prometheus_buckets.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace stampede::stats {

PrometheusBuckets::PrometheusBuckets() {
  bounds_ns_.reserve(kFiniteBounds);
  labels_.reserve(kFiniteBounds);
  for (int k = kLowestExponent; k <= kHighestExponent; ++k) {
    const double seconds = std::pow(10.0, static_cast<double>(k) / kPerDecade);
    // Whole nanoseconds: the label is the bound values are compared with, exactly.
    const auto ns = static_cast<std::int64_t>(std::llround(seconds * 1e9));
    bounds_ns_.push_back(ns);
    labels_.push_back(fmt::format("{}", static_cast<double>(ns) / 1e9));
  }
}

std::vector<std::uint64_t> PrometheusBuckets::cumulative(const Histogram& h) const {
  std::vector<std::uint64_t> out(bounds_ns_.size() + 1, 0);
  for (const HistogramBucket& b : h.nonempty_buckets()) {
    const std::int64_t value = std::clamp(b.high_ns, h.min(), h.max());
    const auto it = std::lower_bound(bounds_ns_.begin(), bounds_ns_.end(), value);
    out[static_cast<std::size_t>(it - bounds_ns_.begin())] += b.count;
  }
  for (std::size_t i = 1; i < out.size(); ++i)
    out[i] += out[i - 1];
  return out;
}

double prometheus_quantile(double q, std::span<const double> bounds_s,
                           std::span<const std::uint64_t> cumulative) {
  if (cumulative.empty() || cumulative.back() == 0) return std::numeric_limits<double>::quiet_NaN();
  const double rank = q * static_cast<double>(cumulative.back());
  std::size_t i = 0;
  while (i + 1 < cumulative.size() && static_cast<double>(cumulative[i]) < rank)
    ++i;
  if (i == bounds_s.size()) return bounds_s.back();  // in +Inf: the highest finite bound
  const double upper = bounds_s[i];
  const double lower = i == 0 ? 0.0 : bounds_s[i - 1];
  const double below = i == 0 ? 0.0 : static_cast<double>(cumulative[i - 1]);
  const double in_bucket = static_cast<double>(cumulative[i]) - below;
  if (in_bucket == 0) return upper;
  return lower + (upper - lower) * (rank - below) / in_bucket;
}

}  // namespace stampede::stats
