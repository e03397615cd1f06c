// The two-sided Mann–Whitney U test (Wilcoxon rank-sum) on two small samples of per-run figures:
// is one side's figure consistently above or below the other's, beyond the order that chance
// alone would give? `stampede compare` (docs/compare.md) asks it per row.
//
// Exact for small samples, ties included: the p-value is the share of the C(n1+n2, n1) ways of
// splitting the pooled values into the two sides whose rank sum (mid-ranks for ties) lies at
// least as far from its mean as the one observed, counted by a subset-sum table instead of
// enumerated. Above kExactLimit values in all, the normal approximation with the tie correction
// and a continuity correction. Pure functions of their arguments; no randomness, so the same
// files always give the same verdict.
#pragma once

#include <cstddef>
#include <span>

namespace stampede::loadgen {

// At most this many values in all (n1 + n2) get the exact test.
inline constexpr std::size_t kExactLimit = 60;

// The two-sided p-value for samples `a` and `b` (each non-empty, finite values); 1 when either
// is empty.
double mann_whitney_p(std::span<const double> a, std::span<const double> b);

// The smallest p-value samples of these sizes can give (every value of one side above every value
// of the other, no ties): 2 / C(n1 + n2, n1), capped at 1. A test at level alpha can only find a
// difference when this is below alpha: at 5%, 4 runs per side (0.029) or 3 and 5 (0.036); 3 and
// 3 (0.1) never can.
double smallest_p(std::size_t n1, std::size_t n2);

}  // namespace stampede::loadgen
