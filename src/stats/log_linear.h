// HdrHistogram's log-linear bucketing, shared by Histogram and the per-row sketches of Timeline.
//
// Values in [0, highest] map to a flat index. The first bucket is linear: 2^(m+1) sub-buckets of
// width 2^u (m = half-count magnitude, u = unit magnitude). Every later bucket covers twice the
// value range of the one before with 2^m sub-buckets of twice the width, so the width of a
// sub-bucket is never more than 2^-m of the values it holds: the relative precision.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>

namespace stampede::stats {

// HdrHistogram's derivation: enough sub-buckets to tell 2 * 10^digits values apart, i.e.
// ceil(log2(2 * 10^digits)) - 1. Three digits give 1024 sub-buckets per octave.
constexpr int sub_bucket_half_magnitude(int significant_digits) {
  std::int64_t largest_single_unit = 2;
  for (int i = 0; i < significant_digits; ++i)
    largest_single_unit *= 10;
  int magnitude = 0;
  while ((std::int64_t{1} << magnitude) < largest_single_unit)
    ++magnitude;
  return magnitude - 1;
}

class LogLinearLayout {
 public:
  // half_magnitude: log2 of sub-buckets per octave; unit_magnitude: log2 of the finest step;
  // highest: the largest value index_of() accepts (callers clamp before).
  constexpr LogLinearLayout(int half_magnitude, int unit_magnitude, std::int64_t highest)
      : half_magnitude_(half_magnitude),
        unit_magnitude_(unit_magnitude),
        half_count_(1 << half_magnitude),
        sub_bucket_mask_(((std::uint64_t{2} << half_magnitude) - 1) << unit_magnitude),
        counts_len_(compute_counts_len(half_magnitude, unit_magnitude, highest)),
        highest_(highest) {}

  constexpr int counts_len() const { return counts_len_; }
  constexpr std::int64_t highest() const { return highest_; }

  // v must be in [0, highest()]. Branch-free: one clz, shifts and adds.
  constexpr int index_of(std::int64_t v) const {
    const auto u = static_cast<std::uint64_t>(v);
    const int pow2_ceiling = 64 - __builtin_clzll(u | sub_bucket_mask_);
    const int bucket = pow2_ceiling - unit_magnitude_ - (half_magnitude_ + 1);
    const int sub = static_cast<int>(u >> (bucket + unit_magnitude_));
    return ((bucket + 1) << half_magnitude_) + sub - half_count_;
  }

  // The smallest value that maps to index.
  constexpr std::int64_t lowest_equivalent(int index) const {
    int bucket = (index >> half_magnitude_) - 1;
    int sub = (index & (half_count_ - 1)) + half_count_;
    if (bucket < 0) {
      sub -= half_count_;
      bucket = 0;
    }
    return static_cast<std::int64_t>(sub) << (bucket + unit_magnitude_);
  }

  // The largest value that maps to index.
  constexpr std::int64_t highest_equivalent(int index) const {
    const int bucket = std::max((index >> half_magnitude_) - 1, 0);
    return lowest_equivalent(index) + (std::int64_t{1} << (bucket + unit_magnitude_)) - 1;
  }

 private:
  static constexpr int compute_counts_len(int half_magnitude, int unit_magnitude,
                                          std::int64_t highest) {
    std::int64_t smallest_untrackable = std::int64_t{2} << (half_magnitude + unit_magnitude);
    int buckets = 1;
    while (smallest_untrackable <= highest) {
      smallest_untrackable *= 2;
      ++buckets;
    }
    return (buckets + 1) << half_magnitude;
  }

  int half_magnitude_;
  int unit_magnitude_;
  int half_count_;
  std::uint64_t sub_bucket_mask_;
  int counts_len_;
  std::int64_t highest_;
};

// HdrHistogram's rank of percentile p among total values: ceil(p / 100 * total), in [1, total].
// p is first nudged down by one ulp (as HdrHistogram Java does) so that a product that lands a
// rounding error above an integer does not skip to the next rank. total must be > 0.
inline std::uint64_t rank_at_percentile(double p, std::uint64_t total) {
  if (!(p > 0)) return 1;
  const double nudged = std::nextafter(std::min(p, 100.0), 0.0);
  const double rank = std::ceil(nudged * static_cast<double>(total) / 100.0);
  if (!(rank >= 1)) return 1;
  if (rank >= static_cast<double>(total)) return total;
  return static_cast<std::uint64_t>(rank);
}

// The index where the running sum of counts first reaches rank (rank in [1, sum of counts]).
template <class Count>
int index_at_rank(std::span<const Count> counts, std::uint64_t rank) {
  std::uint64_t running = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    running += counts[i];
    if (running >= rank) return static_cast<int>(i);
  }
  return static_cast<int>(counts.size()) - 1;
}

}  // namespace stampede::stats
