// The Mann–Whitney test of stampede compare against known vectors: scipy's documented example,
// complete separations (2 / C(n1+n2, n1)), ties checked against an enumeration of every split,
// and the normal approximation above the exact limit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "loadgen/compare_stats.h"

namespace stampede::loadgen {
namespace {

// The oracle: every way of choosing a.size() of the pooled values, by brute force (mid-ranks by
// counting), and the share whose rank sum is as far from its mean as the observed one.
double enumerated_p(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> pooled = a;
  pooled.insert(pooled.end(), b.begin(), b.end());
  const std::size_t n = pooled.size();
  std::vector<double> rank(n);
  for (std::size_t i = 0; i < n; ++i) {
    double below = 0, equal = 0;
    for (double v : pooled) {
      below += v < pooled[i];
      equal += v == pooled[i];
    }
    rank[i] = below + (equal + 1) / 2;
  }
  double observed = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    observed += rank[i];
  const double mean = static_cast<double>(a.size()) * static_cast<double>(n + 1) / 2;
  double hits = 0, total = 0;
  for (std::uint32_t mask = 0; mask < (1u << n); ++mask) {
    if (static_cast<std::size_t>(__builtin_popcount(mask)) != a.size()) continue;
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (mask & (1u << i)) sum += rank[i];
    }
    ++total;
    hits += std::abs(sum - mean) >= std::abs(observed - mean) - 1e-9;
  }
  return hits / total;
}

TEST(MannWhitney, ScipysExampleIsOneNinth) {
  // scipy.stats.mannwhitneyu's documentation: U1 = 17, exact two-sided p = 0.1111.
  const std::vector<double> males{19, 22, 16, 29, 24}, females{20, 11, 17, 12};
  EXPECT_NEAR(mann_whitney_p(males, females), 1.0 / 9, 1e-12);
}

TEST(MannWhitney, CompleteSeparationIsTwoOverTheSplits) {
  EXPECT_NEAR(mann_whitney_p(std::vector<double>{1, 2, 3, 4}, std::vector<double>{5, 6, 7, 8}),
              2.0 / 70, 1e-12);
  EXPECT_NEAR(
      mann_whitney_p(std::vector<double>{10, 9, 8, 7, 6}, std::vector<double>{1, 2, 3, 4, 5}),
      2.0 / 252, 1e-12);
  EXPECT_NEAR(mann_whitney_p(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6}), 0.1,
              1e-12);
}

TEST(MannWhitney, SymmetricInItsSides) {
  const std::vector<double> a{3.1, 2.7, 4.4, 3.9}, b{2.2, 3.0, 2.9, 3.3, 2.5};
  EXPECT_DOUBLE_EQ(mann_whitney_p(a, b), mann_whitney_p(b, a));
}

TEST(MannWhitney, TiesAgreeWithEveryEnumeratedSplit) {
  const std::vector<std::pair<std::vector<double>, std::vector<double>>> cases{
      {{1, 2, 2, 3, 5}, {2, 4, 5, 6, 7}},
      {{10, 10, 10, 12, 12}, {10, 12, 12, 12, 14}},
      {{1.5, 2.5, 3.5}, {1.5, 4, 5, 6}},
      {{7, 7, 7, 7}, {7, 7, 7, 8}},
      {{0.2, 0.2, 0.3, 0.1, 0.2, 0.4}, {0.3, 0.3, 0.5, 0.2, 0.6, 0.4, 0.3}}};
  for (const auto& [a, b] : cases)
    EXPECT_NEAR(mann_whitney_p(a, b), enumerated_p(a, b), 1e-12) << a.size() << "+" << b.size();
  // Known by hand (python enumeration): the first two.
  EXPECT_NEAR(mann_whitney_p(cases[0].first, cases[0].second), 1.0 / 9, 1e-12);
  EXPECT_NEAR(mann_whitney_p(cases[1].first, cases[1].second), 0.36507936507936506, 1e-12);
}

TEST(MannWhitney, EveryValueTiedIsNoEvidence) {
  EXPECT_DOUBLE_EQ(mann_whitney_p(std::vector<double>{5, 5, 5, 5}, std::vector<double>{5, 5, 5, 5}),
                   1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_p(std::vector<double>{}, std::vector<double>{1, 2}), 1.0);
}

TEST(MannWhitney, AboveTheExactLimitTheNormalApproximationIsClose) {
  std::vector<double> a, b, c, d;
  for (int i = 0; i < 31; ++i) {
    a.push_back(i);
    b.push_back(i + 8);
    c.push_back(i % 7);
    d.push_back(i % 7 + 1);
  }
  ASSERT_GT(a.size() + b.size(), kExactLimit);
  // Reference values: the normal approximation with tie and continuity corrections, and the exact
  // p-value, both computed independently in Python.
  EXPECT_NEAR(mann_whitney_p(a, b), 0.0024068599417082343, 1e-9);
  EXPECT_NEAR(mann_whitney_p(a, b), 0.0020106013039421855, 0.001);
  EXPECT_NEAR(mann_whitney_p(c, d), 0.06892677326087268, 1e-9);
  EXPECT_NEAR(mann_whitney_p(c, d), 0.06816141053858618, 0.001);
}

TEST(MannWhitney, SmallestPSaysWhichRunCountsCanEverBeSignificant) {
  EXPECT_DOUBLE_EQ(smallest_p(1, 1), 1.0);
  EXPECT_NEAR(smallest_p(3, 3), 0.1, 1e-12);
  EXPECT_NEAR(smallest_p(4, 4), 2.0 / 70, 1e-12);
  EXPECT_NEAR(smallest_p(3, 5), 2.0 / 56, 1e-12);
  EXPECT_NEAR(smallest_p(5, 5), 2.0 / 252, 1e-12);
  EXPECT_LT(smallest_p(100, 100), 1e-50);
}

}  // namespace
}  // namespace stampede::loadgen
