#include "stats/prometheus_buckets.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/random.h"

namespace stampede::stats {
namespace {

std::vector<double> bounds_in_seconds(const PrometheusBuckets& layout) {
  std::vector<double> out;
  for (std::int64_t ns : layout.bounds_ns())
    out.push_back(static_cast<double>(ns) / 1e9);
  return out;
}

// |Prometheus's quantile - stampede's percentile| / stampede's, for q in `qs`, the worst.
double worst_error(const Histogram& h, std::initializer_list<double> qs) {
  const PrometheusBuckets layout;
  const std::vector<double> bounds = bounds_in_seconds(layout);
  const std::vector<std::uint64_t> cumulative = layout.cumulative(h);
  double worst = 0;
  for (double q : qs) {
    const double ours = static_cast<double>(h.percentile(q * 100)) / 1e9;
    const double theirs = prometheus_quantile(q, bounds, cumulative);
    worst = std::max(worst, std::abs(theirs - ours) / ours);
  }
  return worst;
}

TEST(PrometheusBuckets, LayoutIsAscendingWithRatioUnderTwoPercent) {
  const PrometheusBuckets layout;
  const auto bounds = layout.bounds_ns();
  ASSERT_EQ(bounds.size(), PrometheusBuckets::kFiniteBounds);
  EXPECT_EQ(bounds.front(), 10'000);
  EXPECT_EQ(bounds.back(), 100'000'000'000);
  EXPECT_EQ(layout.labels().front(), "1e-05");
  EXPECT_EQ(layout.labels().back(), "100");
  for (std::size_t i = 1; i < bounds.size(); ++i) {
    ASSERT_GT(bounds[i], bounds[i - 1]);
    EXPECT_LT(static_cast<double>(bounds[i]) / static_cast<double>(bounds[i - 1]), 1.0195) << i;
  }
}

TEST(PrometheusBuckets, CumulativeCountsEndWithTheTotal) {
  Histogram h;
  h.record(5'000);            // below the first bound
  h.record(1'000'000);        // 1 ms
  h.record(200'000'000'000);  // 200 s: only +Inf
  const PrometheusBuckets layout;
  const auto c = layout.cumulative(h);
  ASSERT_EQ(c.size(), PrometheusBuckets::kFiniteBounds + 1);
  EXPECT_EQ(c.front(), 1u);
  EXPECT_EQ(c[c.size() - 2], 2u);
  EXPECT_EQ(c.back(), 3u);
  for (std::size_t i = 1; i < c.size(); ++i)
    ASSERT_GE(c[i], c[i - 1]);
}

TEST(PrometheusBuckets, QuantilesWithinTwoPercentOfLogUniformLatencies) {
  Random rng(7);
  Histogram h;
  for (int i = 0; i < 200'000; ++i)
    h.record(static_cast<std::int64_t>(std::exp(std::log(20e3) + rng.unit() * std::log(1e5))));
  EXPECT_LT(worst_error(h, {0.5, 0.9, 0.99, 0.999}), 0.02);
}

TEST(PrometheusBuckets, QuantilesWithinTwoPercentOfANarrowLoopbackLikeDistribution) {
  // Most values within a few microseconds of 80 us, a tail to 5 ms: the bucket holding p50 is
  // dense, the worst case for interpolation.
  Random rng(11);
  Histogram h;
  for (int i = 0; i < 100'000; ++i) {
    const double u = rng.unit();
    h.record(u < 0.99 ? 78'000 + static_cast<std::int64_t>(rng.unit() * 4'000)
                      : 200'000 + static_cast<std::int64_t>(rng.unit() * 4.8e6));
  }
  EXPECT_LT(worst_error(h, {0.5, 0.99}), 0.02);
}

TEST(PrometheusBuckets, QuantilesWithinTwoPercentWhenEveryValueIsTheSame) {
  for (std::int64_t v : {12'345L, 999'999L, 1'000'000L, 73'000'000L, 4'000'000'000L}) {
    Histogram h;
    h.record_n(v, 1000);
    EXPECT_LT(worst_error(h, {0.5, 0.99}), 0.02) << v;
  }
}

TEST(PrometheusBuckets, QuantileOfAnEmptyHistogramIsNaN) {
  const PrometheusBuckets layout;
  const auto bounds = bounds_in_seconds(layout);
  EXPECT_TRUE(std::isnan(prometheus_quantile(0.5, bounds, layout.cumulative(Histogram{}))));
}

}  // namespace
}  // namespace stampede::stats
