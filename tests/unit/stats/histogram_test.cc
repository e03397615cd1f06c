#include "stats/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/random.h"

namespace stampede::stats {
namespace {

constexpr std::int64_t kHour = Histogram::kHighestTrackableNs;

// n values log-uniform over [lo, hi], seeded.
std::vector<std::int64_t> log_uniform(std::uint64_t seed, std::size_t n, double lo, double hi) {
  Random rng(seed);
  std::vector<std::int64_t> values(n);
  const double span = std::log(hi) - std::log(lo);
  for (auto& v : values)
    v = static_cast<std::int64_t>(std::exp(std::log(lo) + rng.unit() * span));
  return values;
}

// The exact value at percentile (hundredths of a percent, integer so the rank is exact).
std::int64_t exact_at(const std::vector<std::int64_t>& sorted, std::uint64_t hundredths) {
  const std::uint64_t n = sorted.size();
  if (hundredths == 0) return sorted.front();
  const std::uint64_t rank = (hundredths * n + 9999) / 10000;
  return sorted[std::max<std::uint64_t>(rank, 1) - 1];
}

Histogram record_all(const std::vector<std::int64_t>& values) {
  Histogram h;
  for (const std::int64_t v : values)
    h.record(v);
  return h;
}

// `a` and `b` agree on the count, min, max, mean, standard deviation and every percentile from 0
// to 100 in steps of 1/`per_percent`; fatal at the first percentile that differs (the step shown).
void expect_same_figures(const Histogram& a, const Histogram& b, int per_percent) {
  EXPECT_EQ(a.count(), b.count());
  EXPECT_EQ(a.min(), b.min());
  EXPECT_EQ(a.max(), b.max());
  EXPECT_EQ(a.mean(), b.mean());
  EXPECT_EQ(a.stddev(), b.stddev());
  for (int i = 0; i <= 100 * per_percent; ++i) {
    const double p = static_cast<double>(i) / per_percent;
    ASSERT_EQ(a.percentile(p), b.percentile(p)) << i;
  }
}

// `a` and `b` have as many rows (fatal when not), and row i of each the same `fields`.
template <class Row, class... Field>
void expect_same_rows(const std::vector<Row>& a, const std::vector<Row>& b,
                      Field Row::*... fields) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    ([&] { EXPECT_EQ(a[i].*fields, b[i].*fields) << i; }(), ...);
}

TEST(Histogram, PercentilesWithinAccuracyOnLogUniformData) {
  std::vector<std::int64_t> values = log_uniform(7, 100'000, 1e3, 3.6e12);
  const Histogram h = record_all(values);
  std::sort(values.begin(), values.end());
  ASSERT_EQ(h.count(), values.size());
  EXPECT_EQ(h.min(), values.front());
  EXPECT_EQ(h.max(), values.back());
  for (const std::uint64_t hundredths : {0, 100, 5000, 9000, 9900, 9990, 9999, 10000}) {
    const double p = static_cast<double>(hundredths) / 100.0;
    const std::int64_t exact = exact_at(values, hundredths);
    const std::int64_t got = h.percentile(p);
    EXPECT_GE(got, exact) << "p" << p;
    EXPECT_LE(static_cast<double>(got - exact), 0.001 * static_cast<double>(exact)) << "p" << p;
  }
  EXPECT_EQ(h.percentile(0), values.front());
  EXPECT_EQ(h.percentile(100), values.back());
}

TEST(Histogram, EveryHundredthPercentileWithinAccuracyOnNarrowData) {
  // A tight 40..60 us spread: many values share buckets, ranks land inside buckets.
  Random rng(11);
  std::vector<std::int64_t> values(20'000);
  for (auto& v : values)
    v = 40'000 + static_cast<std::int64_t>(rng.below(20'000));
  const Histogram h = record_all(values);
  std::sort(values.begin(), values.end());
  for (std::uint64_t hundredths = 0; hundredths <= 10000; ++hundredths) {
    const double p = static_cast<double>(hundredths) / 100.0;
    const std::int64_t exact = exact_at(values, hundredths);
    const std::int64_t got = h.percentile(p);
    ASSERT_GE(got, exact) << "p" << p;
    ASSERT_LE(static_cast<double>(got - exact), 0.001 * static_cast<double>(exact)) << "p" << p;
  }
}

TEST(Histogram, SmallValuesAreExact) {
  Histogram h;
  for (std::int64_t v = 0; v < 2048; ++v)
    h.record(v);
  for (const HistogramBucket& b : h.nonempty_buckets()) {
    EXPECT_EQ(b.low_ns, b.high_ns);
    EXPECT_EQ(b.count, 1u);
  }
  EXPECT_EQ(h.nonempty_buckets().size(), 2048u);
  EXPECT_EQ(h.percentile(50), 1023);
}

TEST(Histogram, MergeOfFourEqualsOneHistogramOfAll) {
  const std::vector<std::int64_t> values = log_uniform(3, 100'000, 1e3, 3.6e12);
  Random rng(5);
  Histogram parts[4];
  for (const std::int64_t v : values)
    parts[rng.below(4)].record(v);
  const Histogram all = record_all(values);
  Histogram merged;
  for (const Histogram& part : parts) {
    EXPECT_GT(part.count(), 0u);
    merged.merge(part);
  }
  ASSERT_NO_FATAL_FAILURE(expect_same_figures(merged, all, 20));
  for (const double p : {1e-4, 0.01, 99.9, 99.99, 99.999, 99.9999})
    EXPECT_EQ(merged.percentile(p), all.percentile(p)) << p;
  ASSERT_NO_FATAL_FAILURE(expect_same_rows(merged.nonempty_buckets(), all.nonempty_buckets(),
                                           &HistogramBucket::low_ns, &HistogramBucket::count));
  ASSERT_NO_FATAL_FAILURE(
      expect_same_rows(merged.percentile_distribution(), all.percentile_distribution(),
                       &PercentilePoint::value_ns, &PercentilePoint::total_count));
}

TEST(Histogram, MergeIntoEmptyAndOfEmpty) {
  Histogram a;
  Histogram empty;
  a.record(5'000);
  a.merge(empty);
  EXPECT_EQ(a.count(), 1u);
  EXPECT_EQ(a.min(), 5'000);
  empty.merge(a);
  EXPECT_EQ(empty.count(), 1u);
  EXPECT_EQ(empty.min(), 5'000);
  EXPECT_EQ(empty.max(), 5'000);
}

TEST(Histogram, ClampsAboveHighestButKeepsExactMinMaxCount) {
  Histogram h;
  const std::int64_t ten_hours = 10 * kHour;
  for (int i = 0; i < 99; ++i)
    h.record(1'000'000);
  h.record(ten_hours);
  EXPECT_EQ(h.count(), 100u);
  EXPECT_EQ(h.max(), ten_hours);
  EXPECT_EQ(h.percentile(100), ten_hours);
  // Rank 100 is the clamped value: reported at the top of the trackable range, not 10 h.
  const std::int64_t top = h.percentile(99.5);
  EXPECT_GE(top, kHour);
  EXPECT_LE(static_cast<double>(top), 1.001 * static_cast<double>(kHour));
  EXPECT_LE(h.percentile(99), 1'001'000);
  EXPECT_GE(h.percentile(99), 1'000'000);
}

TEST(Histogram, BelowLowestAndNegative) {
  Histogram h;
  h.record(5);
  h.record(999);
  EXPECT_EQ(h.min(), 5);
  EXPECT_EQ(h.percentile(0), 5);
  EXPECT_EQ(h.percentile(50), 5);
  EXPECT_EQ(h.percentile(100), 999);
  h.record(-40);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.count(), 3u);
}

TEST(Histogram, MeanAndStddevMatchExact) {
  const std::vector<std::int64_t> values = log_uniform(9, 100'000, 1e4, 1e9);
  const Histogram h = record_all(values);
  long double sum = 0;
  for (const std::int64_t v : values)
    sum += v;
  const long double mean = sum / values.size();
  long double squares = 0;
  for (const std::int64_t v : values)
    squares += (v - mean) * (v - mean);
  const long double stddev = std::sqrt(squares / values.size());
  EXPECT_NEAR(h.mean(), static_cast<double>(mean), 1e-9 * static_cast<double>(mean));
  EXPECT_NEAR(h.stddev(), static_cast<double>(stddev), 1e-9 * static_cast<double>(stddev));
}

TEST(Histogram, StddevOfTightSpreadAroundLargeMean) {
  // Mean 1 s, spread of +-1 ns: the variance must not drown in rounding.
  Histogram h;
  h.record(1'000'000'001);
  h.record(999'999'999);
  EXPECT_DOUBLE_EQ(h.mean(), 1e9);
  EXPECT_NEAR(h.stddev(), 1.0, 1e-6);
}

TEST(Histogram, RecordNEqualsRepeatedRecord) {
  Histogram a;
  Histogram b;
  for (const std::int64_t v :
       {std::int64_t{1'500}, std::int64_t{70'000}, std::int64_t{3'000'000}, 2 * kHour}) {
    a.record_n(v, 1000);
    for (int i = 0; i < 1000; ++i)
      b.record(v);
  }
  a.record_n(1, 0);
  expect_same_figures(a, b, 10);
}

TEST(Histogram, ResetForgetsEverything) {
  Histogram h = record_all(log_uniform(1, 1000, 1e3, 1e9));
  const std::size_t bytes = h.memory_bytes();
  h.reset();
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 0);
  EXPECT_EQ(h.mean(), 0);
  EXPECT_EQ(h.stddev(), 0);
  EXPECT_EQ(h.percentile(50), 0);
  EXPECT_TRUE(h.nonempty_buckets().empty());
  EXPECT_TRUE(h.percentile_distribution().empty());
  EXPECT_EQ(h.memory_bytes(), bytes);
  const std::vector<std::int64_t> again = log_uniform(2, 1000, 1e3, 1e9);
  const Histogram fresh = record_all(again);
  for (const std::int64_t v : again)
    h.record(v);
  EXPECT_EQ(h.min(), fresh.min());
  EXPECT_EQ(h.max(), fresh.max());
  EXPECT_EQ(h.mean(), fresh.mean());
  for (int i = 0; i <= 100; ++i)
    EXPECT_EQ(h.percentile(i), fresh.percentile(i));
}

TEST(Histogram, PercentileDistributionIsMonotonicAndConsistent) {
  const std::vector<std::int64_t> values = log_uniform(4, 100'000, 1e4, 1e8);
  const Histogram h = record_all(values);
  const std::vector<PercentilePoint> points = h.percentile_distribution(5);
  ASSERT_GT(points.size(), 50u);
  EXPECT_LT(points.size(), 400u);
  EXPECT_EQ(points.front().percentile, 0.0);
  EXPECT_EQ(points.back().percentile, 100.0);
  EXPECT_EQ(points.back().value_ns, h.max());
  EXPECT_EQ(points.back().total_count, h.count());
  for (std::size_t i = 1; i < points.size(); ++i) {
    EXPECT_GT(points[i].percentile, points[i - 1].percentile);
    EXPECT_GE(points[i].value_ns, points[i - 1].value_ns);
    EXPECT_GE(points[i].total_count, points[i - 1].total_count);
  }
  for (const PercentilePoint& point : points) {
    EXPECT_GE(100.0 * static_cast<double>(point.total_count) / h.count(), point.percentile);
    if (point.percentile > 0 && point.percentile < 100) {
      EXPECT_EQ(point.value_ns, h.percentile(point.percentile)) << point.percentile;
    }
  }
  // Ticks per half distance: the first half (0..50) gets exactly that many steps.
  const auto first_half = std::count_if(points.begin(), points.end(),
                                        [](const PercentilePoint& p) { return p.percentile < 50; });
  EXPECT_EQ(first_half, 5);
  EXPECT_GT(h.percentile_distribution(10).size(), points.size());
}

TEST(Histogram, BucketsPartitionTheCount) {
  const std::vector<std::int64_t> values = log_uniform(8, 10'000, 1e3, 1e10);
  const Histogram h = record_all(values);
  std::uint64_t total = 0;
  std::int64_t previous_high = -1;
  for (const HistogramBucket& b : h.nonempty_buckets()) {
    EXPECT_GT(b.low_ns, previous_high);
    EXPECT_GE(b.high_ns, b.low_ns);
    // Bucket width within 2^-10 of its values.
    EXPECT_LE(static_cast<double>(b.high_ns - b.low_ns), b.low_ns / 1024.0);
    previous_high = b.high_ns;
    total += b.count;
  }
  EXPECT_EQ(total, h.count());
}

}  // namespace
}  // namespace stampede::stats
