#include "report/axis.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

namespace stampede::report {
namespace {

std::vector<std::string> labels(const Ticks& t) {
  std::vector<std::string> out;
  for (double v : t.values)
    out.push_back(format_tick(v, t));
  return out;
}

TEST(NiceTicks, ExtendsToTheNextNiceStep) {
  const Ticks t = nice_ticks(0, 97, 5, true);
  EXPECT_EQ(t.mantissa, 2);
  EXPECT_EQ(t.exponent, 1);
  EXPECT_EQ(t.step, 20);
  EXPECT_EQ(t.values, (std::vector<double>{0, 20, 40, 60, 80, 100}));
}

TEST(NiceTicks, DecimalStepsAreExactDecimals) {
  EXPECT_EQ(nice_ticks(0, 1, 5, true).values, (std::vector<double>{0, 0.2, 0.4, 0.6, 0.8, 1}));
  // 0.3 / 0.1 is 2.9999999999999996 in binary: still three intervals, and 3 * 0.1 is 0.3.
  const Ticks t = nice_ticks(0, 0.3, 3, true);
  EXPECT_EQ(t.values, (std::vector<double>{0, 0.1, 0.2, 0.3}));
  EXPECT_EQ(labels(t), (std::vector<std::string>{"0", "0.1", "0.2", "0.3"}));
}

TEST(NiceTicks, UsesOneTwoFiveSteps) {
  EXPECT_EQ(nice_ticks(0, 10, 5, true).step, 2);
  EXPECT_EQ(nice_ticks(0, 10, 10, true).step, 1);
  EXPECT_EQ(nice_ticks(0, 24, 5, true).step, 5);
  EXPECT_EQ(nice_ticks(0, 26, 5, true).step, 10);
  EXPECT_EQ(nice_ticks(0, 0.0042, 5, true).values,
            (std::vector<double>{0, 0.001, 0.002, 0.003, 0.004, 0.005}));
}

TEST(NiceTicks, NegativeRangeCrossesZero) {
  const Ticks t = nice_ticks(-7, 23, 6, true);
  EXPECT_EQ(t.values, (std::vector<double>{-10, 0, 10, 20, 30}));
}

TEST(NiceTicks, InnerTicksStayInsideTheRange) {
  const Ticks t = nice_ticks(3, 17, 10, false);
  EXPECT_EQ(t.step, 2);
  EXPECT_EQ(t.values, (std::vector<double>{4, 6, 8, 10, 12, 14, 16}));
  EXPECT_EQ(nice_ticks(0, 57, 10, false).values, (std::vector<double>{0, 10, 20, 30, 40, 50}));
}

TEST(NiceTicks, EqualBoundsGiveOneTick) {
  EXPECT_EQ(nice_ticks(5, 5, 5, true).values, (std::vector<double>{5}));
  EXPECT_EQ(nice_ticks(0, 0, 5, true).values, (std::vector<double>{0}));
}

TEST(NiceTicks, HugeRangesStayFinite) {
  const Ticks t = nice_ticks(0, 1e300, 5, true);
  EXPECT_EQ(t.mantissa, 2);
  EXPECT_EQ(t.exponent, 299);
  ASSERT_EQ(t.values.size(), 6u);
  for (double v : t.values)
    EXPECT_TRUE(std::isfinite(v)) << v;
  EXPECT_DOUBLE_EQ(t.values.back(), 1e300);
}

TEST(NiceTicks, NeverMoreIntervalsThanAsked) {
  for (double hi : {0.7, 1.0, 3.3, 9.99, 10.01, 47.0, 999.0, 1001.0, 123456.0}) {
    for (int n : {2, 3, 5, 8, 10}) {
      const Ticks t = nice_ticks(0.5, hi, n, true);
      EXPECT_LE(t.values.size(), static_cast<std::size_t>(n) + 1) << hi << " " << n;
      EXPECT_LE(t.values.front(), 0.5);
      EXPECT_GE(t.values.back(), hi);
    }
  }
}

TEST(FormatTick, UsesSuffixesForLargeValues) {
  EXPECT_EQ(labels(nice_ticks(0, 3.7e9, 5, true)),
            (std::vector<std::string>{"0", "1G", "2G", "3G", "4G"}));
  EXPECT_EQ(labels(nice_ticks(0, 1234567, 5, true)),
            (std::vector<std::string>{"0", "0.5M", "1.0M", "1.5M"}));
  EXPECT_EQ(labels(nice_ticks(0, 7000, 5, true)),
            (std::vector<std::string>{"0", "2000", "4000", "6000", "8000"}));
  EXPECT_EQ(labels(nice_ticks(0, 9000, 5, true)),
            (std::vector<std::string>{"0", "2k", "4k", "6k", "8k", "10k"}));
  EXPECT_EQ(labels(nice_ticks(0, 45000, 5, true)),
            (std::vector<std::string>{"0", "10k", "20k", "30k", "40k", "50k"}));
}

TEST(FormatNumber, ThreeSignificantDigitsAndGrouping) {
  const std::pair<double, std::string_view> cases[] = {
      {0, "0"},
      {0.01234, "0.0123"},
      {1.5, "1.5"},
      {2, "2"},
      {12.34, "12.3"},
      {123.4, "123"},
      {1234.4, "1234"},
      {12345.6, "12,346"},
      {-12345, "-12,345"},
      {1234567, "1,234,567"},
      {std::numeric_limits<double>::quiet_NaN(), "-"},
      {std::numeric_limits<double>::infinity(), "-"}};
  for (const auto& [input, expected] : cases)
    EXPECT_EQ(format_number(input), expected) << input;
}

TEST(PercentileAxis, MapsPercentilesToNines) {
  EXPECT_EQ(percentile_to_nines(0), 0);
  EXPECT_EQ(percentile_to_nines(90), 1);
  EXPECT_EQ(percentile_to_nines(99), 2);
  EXPECT_NEAR(percentile_to_nines(99.9), 3, 1e-12);
  EXPECT_NEAR(percentile_to_nines(99.99), 4, 1e-11);
  EXPECT_NEAR(percentile_to_nines(99.999), 5, 1e-10);
  EXPECT_NEAR(percentile_to_nines(50), std::log10(2.0), 1e-15);
  EXPECT_NEAR(percentile_to_nines(75), std::log10(4.0), 1e-15);
  EXPECT_TRUE(std::isinf(percentile_to_nines(100)));
  EXPECT_TRUE(std::isnan(percentile_to_nines(-1)));
  EXPECT_TRUE(std::isnan(percentile_to_nines(std::numeric_limits<double>::quiet_NaN())));
}

TEST(PercentileAxis, Labels) {
  EXPECT_EQ(nines_label(0), "0%");
  EXPECT_EQ(nines_label(1), "90%");
  EXPECT_EQ(nines_label(2), "99%");
  EXPECT_EQ(nines_label(3), "99.9%");
  EXPECT_EQ(nines_label(5), "99.999%");
  EXPECT_EQ(percentile_label(50), "p50");
  EXPECT_EQ(percentile_label(99.9), "p99.9");
  EXPECT_EQ(percentile_label(99.999), "p99.999");
  EXPECT_EQ(percentile_label(100), "p100");
}

}  // namespace
}  // namespace stampede::report
