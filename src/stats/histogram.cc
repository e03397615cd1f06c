#include "stats/histogram.h"

#include <algorithm>
#include <cmath>
#include <span>

namespace stampede::stats {

Histogram::Histogram() : counts_(static_cast<std::size_t>(kLayout.counts_len()), 0) {}

void Histogram::record_n(std::int64_t ns, std::uint64_t n) {
  if (n == 0) return;
  const std::int64_t v = std::max<std::int64_t>(ns, 0);
  const std::int64_t clamped = std::min(v, kHighestTrackableNs);
  counts_[kLayout.index_of(clamped)] += n;
  total_ += n;
  min_ = std::min(min_, v);
  max_ = std::max(max_, v);
  const auto u = static_cast<unsigned __int128>(clamped);
  sum_ += u * n;
  sum_squares_ += u * u * n;
}

void Histogram::merge(const Histogram& other) {
  if (other.total_ == 0) return;
  for (std::size_t i = 0; i < counts_.size(); ++i)
    counts_[i] += other.counts_[i];
  total_ += other.total_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  sum_ += other.sum_;
  sum_squares_ += other.sum_squares_;
}

std::size_t Histogram::counts_used() const {
  if (total_ == 0) return 0;
  return static_cast<std::size_t>(kLayout.index_of(std::min(max_, kHighestTrackableNs))) + 1;
}

Expected<Histogram> Histogram::restore(std::span<const std::uint64_t> counts,
                                       const HistogramTotals& totals) {
  Histogram h;
  if (counts.size() > h.counts_.size()) return make_error("histogram has too many buckets");
  std::uint64_t total = 0;
  std::size_t first = counts.size(), last = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] > std::numeric_limits<std::uint64_t>::max() - total) {
      return make_error("histogram counts overflow");
    }
    if (counts[i] != 0) {
      first = std::min(first, i);
      last = i;
    }
    total += counts[i];
    h.counts_[i] = counts[i];
  }
  if (total != totals.count) return make_error("histogram counts do not add up to its count");
  if (total == 0) return h;
  if (totals.min < 0 || totals.min > totals.max) return make_error("histogram min/max invalid");
  const auto bucket_of = [](std::int64_t v) {
    return static_cast<std::size_t>(kLayout.index_of(std::min(v, kHighestTrackableNs)));
  };
  if (bucket_of(totals.min) != first || bucket_of(totals.max) != last) {
    return make_error("histogram min/max do not match its counts");
  }
  h.total_ = total;
  h.min_ = totals.min;
  h.max_ = totals.max;
  h.sum_ = totals.sum;
  h.sum_squares_ = totals.sum_squares;
  return h;
}

void Histogram::reset() {
  std::fill(counts_.begin(), counts_.end(), 0);
  total_ = 0;
  min_ = std::numeric_limits<std::int64_t>::max();
  max_ = 0;
  sum_ = 0;
  sum_squares_ = 0;
}

double Histogram::mean() const {
  if (total_ == 0) return 0;
  return static_cast<double>(static_cast<long double>(sum_) / total_);
}

double Histogram::stddev() const {
  if (total_ == 0) return 0;
  // long double keeps 64 mantissa bits, so E[x^2] - E[x]^2 keeps its precision for latencies
  // whose spread is far below their mean.
  const long double n = total_;
  const long double mean = static_cast<long double>(sum_) / n;
  const long double variance = static_cast<long double>(sum_squares_) / n - mean * mean;
  return variance > 0 ? static_cast<double>(std::sqrt(variance)) : 0.0;
}

std::int64_t Histogram::reported_value(int index) const {
  return std::clamp(kLayout.highest_equivalent(index), min_, max_);
}

std::int64_t Histogram::percentile(double p) const {
  if (total_ == 0) return 0;
  if (!(p > 0)) return min_;
  if (p >= 100) return max_;
  const std::uint64_t rank = rank_at_percentile(p, total_);
  return reported_value(index_at_rank(std::span<const std::uint64_t>(counts_), rank));
}

namespace {

// HdrHistogram's PercentileIterator step: ticks_per_half * 2^(halvings to reach level + 1).
double percentile_step(double level, int ticks_per_half) {
  const double halvings = std::floor(std::log2(100.0 / (100.0 - level)));
  const double exponent = std::min(halvings + 1, 60.0);
  return 100.0 / (ticks_per_half * std::exp2(exponent));
}

}  // namespace

std::vector<PercentilePoint> Histogram::percentile_distribution(int ticks_per_half_distance) const {
  std::vector<PercentilePoint> points;
  if (total_ == 0) return points;
  const int ticks = std::max(ticks_per_half_distance, 1);
  std::size_t index = 0;
  std::uint64_t running = counts_[0];
  for (double level = 0; level < 100.0; level += percentile_step(level, ticks)) {
    // Same rank rule as percentile(), so every point strictly between 0 and 100 equals
    // percentile(point.percentile); the point at 0 is the first bucket, as in HdrHistogram.
    const std::uint64_t rank = rank_at_percentile(level, total_);
    while (running < rank)
      running += counts_[++index];
    points.push_back({reported_value(static_cast<int>(index)), level, running});
    if (running == total_) break;
  }
  points.push_back({max_, 100.0, total_});
  return points;
}

std::vector<HistogramBucket> Histogram::nonempty_buckets() const {
  std::vector<HistogramBucket> buckets;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] == 0) continue;
    const int index = static_cast<int>(i);
    buckets.push_back(
        {kLayout.lowest_equivalent(index), kLayout.highest_equivalent(index), counts_[i]});
  }
  return buckets;
}

}  // namespace stampede::stats
