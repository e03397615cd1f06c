#include "loadgen/compare_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace stampede::loadgen {
namespace {

struct Ranked {
  std::vector<std::int64_t> twice_rank;  // 2 x mid-rank of each pooled value, `a`'s first
  double tie_term = 0;                   // sum over groups of tied values of t^3 - t
};

// Mid-ranks (1-based) of the pooled values, doubled so that they are integers.
Ranked rank(std::span<const double> a, std::span<const double> b) {
  const std::size_t n = a.size() + b.size();
  std::vector<std::size_t> order(n);
  const auto value = [&](std::size_t i) { return i < a.size() ? a[i] : b[i - a.size()]; };
  for (std::size_t i = 0; i < n; ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t x, std::size_t y) { return value(x) < value(y); });
  Ranked out;
  out.twice_rank.resize(n);
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j + 1 < n && value(order[j + 1]) == value(order[i]))
      ++j;
    // Positions i..j (0-based) share the mean of ranks i+1..j+1: doubled, i + j + 2.
    for (std::size_t k = i; k <= j; ++k)
      out.twice_rank[order[k]] = static_cast<std::int64_t>(i + j + 2);
    const double t = static_cast<double>(j - i + 1);
    out.tie_term += t * t * t - t;
    i = j + 1;
  }
  return out;
}

// Exact: ways[k][s] counts the subsets of k pooled values whose doubled rank sum is s, over
// every value in turn (the subset-sum table, O(n x n1 x n^2)).
double exact_p(const Ranked& r, std::size_t n1, std::int64_t observed) {
  const std::size_t n = r.twice_rank.size();
  const std::size_t max_sum = n * (n + 1);
  std::vector<std::vector<double>> ways(n1 + 1, std::vector<double>(max_sum + 1, 0.0));
  ways[0][0] = 1;
  for (std::size_t i = 0; i < n; ++i) {
    const auto w = static_cast<std::size_t>(r.twice_rank[i]);
    for (std::size_t k = std::min(n1, i + 1); k >= 1; --k) {
      for (std::size_t s = max_sum; s >= w; --s)
        ways[k][s] += ways[k - 1][s - w];
    }
  }
  // The doubled mean rank sum of n1 values: n1 (n + 1).
  const auto mean = static_cast<std::int64_t>(n1 * (n + 1));
  const std::int64_t distance = std::llabs(observed - mean);
  double at_least = 0, total = 0;
  for (std::size_t s = 0; s <= max_sum; ++s) {
    total += ways[n1][s];
    if (std::llabs(static_cast<std::int64_t>(s) - mean) >= distance) at_least += ways[n1][s];
  }
  return std::min(1.0, at_least / total);
}

double normal_p(const Ranked& r, std::size_t n1, std::size_t n2, std::int64_t observed) {
  const double n = static_cast<double>(n1 + n2);
  const double u = static_cast<double>(observed) / 2 - static_cast<double>(n1 * (n1 + 1)) / 2;
  const double mean = static_cast<double>(n1 * n2) / 2;
  const double variance =
      static_cast<double>(n1 * n2) / 12 * ((n + 1) - r.tie_term / (n * (n - 1)));
  if (variance <= 0) return 1;  // every value tied
  const double z = std::max(0.0, std::abs(u - mean) - 0.5) / std::sqrt(variance);
  return std::min(1.0, std::erfc(z / std::sqrt(2.0)));
}

}  // namespace

double mann_whitney_p(std::span<const double> a, std::span<const double> b) {
  if (a.empty() || b.empty()) return 1;
  const Ranked r = rank(a, b);
  std::int64_t observed = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    observed += r.twice_rank[i];
  if (a.size() + b.size() <= kExactLimit) return exact_p(r, a.size(), observed);
  return normal_p(r, a.size(), b.size(), observed);
}

double smallest_p(std::size_t n1, std::size_t n2) {
  // C(n1 + n2, n1) as a double, built up so that it stays exact while it is small.
  double ways = 1;
  for (std::size_t k = 1; k <= n1; ++k)
    ways = ways * static_cast<double>(n2 + k) / static_cast<double>(k);
  return std::min(1.0, 2 / ways);
}

}  // namespace stampede::loadgen
