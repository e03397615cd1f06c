// Latency histogram with HdrHistogram's log-linear bucketing: bounded memory, lossless merges.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "core/expected.h"
#include "stats/log_linear.h"

namespace stampede::stats {

// One line of HdrHistogram's outputPercentileDistribution.
struct PercentilePoint {
  std::int64_t value_ns;      // highest-equivalent value at this percentile
  double percentile;          // 0..100
  std::uint64_t total_count;  // values recorded at or below value_ns
};

// A non-empty bucket: count values fell in [low_ns, high_ns].
struct HistogramBucket {
  std::int64_t low_ns;
  std::int64_t high_ns;
  std::uint64_t count;
};

// A histogram's exact aggregates beside its counts (what its bucket counts alone cannot give).
struct HistogramTotals {
  std::uint64_t count = 0;
  std::int64_t min = 0;  // 0 when count is 0
  std::int64_t max = 0;
  unsigned __int128 sum = 0;  // of the clamped values
  unsigned __int128 sum_squares = 0;
};

// Values are nanoseconds, 3 significant digits, trackable range 1 us .. 1 hour.
//
// The finest step is 1 ns: the first bucket is linear up to 2048 ns, so values below the lowest
// trackable (1 us) land in it exactly, and every value up to 1 hour is held within 2^-10 (< 0.1%).
// Negative values count as 0. Values above 1 hour are counted in the last bucket (clamped), while
// count(), min() and max() stay exact; mean() and stddev() are exact over the clamped values.
//
// All memory (264 KiB of counts) is allocated by the constructor; record() never allocates.
// Not thread-safe: one Histogram per worker, merged after the workers join.
class Histogram {
 public:
  static constexpr int kSignificantDigits = 3;
  static constexpr std::int64_t kLowestTrackableNs = 1'000;
  static constexpr std::int64_t kHighestTrackableNs = 3'600'000'000'000;

  Histogram();

  // A few instructions: clamp, one clz, shifts, adds; no floating point, no allocation.
  void record(std::int64_t ns) {
    const std::int64_t v = ns < 0 ? 0 : ns;
    const std::int64_t clamped = v < kHighestTrackableNs ? v : kHighestTrackableNs;
    ++counts_[kLayout.index_of(clamped)];
    ++total_;
    min_ = v < min_ ? v : min_;
    max_ = v > max_ ? v : max_;
    const auto u = static_cast<std::uint64_t>(clamped);
    sum_ += u;
    sum_squares_ += static_cast<unsigned __int128>(u) * u;
  }
  // Records ns n times (n == 0 records nothing).
  void record_n(std::int64_t ns, std::uint64_t n);
  // Adds every value of other. Lossless: the result equals one histogram that saw both streams.
  void merge(const Histogram& other);
  // Forgets every value; keeps the memory.
  void reset();

  std::uint64_t count() const { return total_; }
  // Exact smallest / largest recorded value; 0 when empty.
  std::int64_t min() const { return total_ == 0 ? 0 : min_; }
  std::int64_t max() const { return total_ == 0 ? 0 : max_; }
  // Arithmetic mean and population standard deviation; 0 when empty.
  double mean() const;
  double stddev() const;

  // HdrHistogram semantics: the highest-equivalent value of the bucket holding the value of rank
  // ceil(p / 100 * count()), kept within [min(), max()]. p <= 0 gives min(), p >= 100 gives max(),
  // an empty histogram gives 0. Within 0.1% (relative) of the exact value, never below it.
  std::int64_t percentile(double p) const;

  // Like HdrHistogram's outputPercentileDistribution: points at percentiles 0, then steps of
  // 100 / (ticks_per_half_distance * 2^(halvings of the distance to 100) ), up to the level where
  // every value is counted, then a last point {max(), 100, count()}. Empty when count() == 0.
  std::vector<PercentilePoint> percentile_distribution(int ticks_per_half_distance = 5) const;

  // The non-empty buckets in increasing value order (for export).
  std::vector<HistogramBucket> nonempty_buckets() const;

  // The whole state, for saving a result and loading it back (stats/hdr_encoding.h): the counts
  // by bucket index (HdrHistogram's counts array for lowest 1, highest kHighestTrackableNs, 3
  // digits) and the exact aggregates.
  std::span<const std::uint64_t> counts() const { return counts_; }
  HistogramTotals totals() const { return {total_, min(), max(), sum_, sum_squares_}; }
  // The index of the last non-empty bucket + 1 (0 when empty).
  std::size_t counts_used() const;
  // A histogram with these counts (a prefix of counts(); the rest is 0) and totals. Fails when
  // they disagree: more counts than buckets, counts that do not add up to totals.count, or
  // values outside [min, max].
  static Expected<Histogram> restore(std::span<const std::uint64_t> counts,
                                     const HistogramTotals& totals);

  // Bytes of counts held (constant for the histogram's lifetime).
  std::size_t memory_bytes() const { return counts_.capacity() * sizeof(std::uint64_t); }

 private:
  static constexpr LogLinearLayout kLayout{sub_bucket_half_magnitude(kSignificantDigits), 0,
                                           kHighestTrackableNs};
  static_assert(kLayout.index_of(kHighestTrackableNs) < kLayout.counts_len());

  // The reported value of bucket index: its highest-equivalent value within [min_, max_].
  std::int64_t reported_value(int index) const;

  std::vector<std::uint64_t> counts_;
  std::uint64_t total_ = 0;
  std::int64_t min_ = std::numeric_limits<std::int64_t>::max();
  std::int64_t max_ = 0;
  unsigned __int128 sum_ = 0;
  unsigned __int128 sum_squares_ = 0;
};

}  // namespace stampede::stats
