#include "balancer/policy.h"

namespace stampede::balancer {

std::unique_ptr<Policy> make_policy(Strategy strategy, const PolicyParams& params) {
  switch (strategy) {
    case Strategy::RoundRobin:
      return make_round_robin(params);
    case Strategy::Least:
      return make_least(params);
    case Strategy::P2c:
      return make_p2c(params);
    case Strategy::Ewma:
      return make_ewma(params);
    case Strategy::Sticky:
      return make_sticky(params);
    case Strategy::Random:
      return make_random(params);
  }
  return make_round_robin(params);
}

namespace policy_detail {

Pair two_random_choices(std::span<Backend* const> backends, const RequestContext& ctx,
                        Random& random) {
  std::uint64_t n = 0;
  for (Backend* b : backends)
    n += ctx.eligible(b) ? 1 : 0;
  if (n == 0) return {};
  // Ranks among the eligible backends: i uniform, j uniform over the others.
  std::uint64_t i = random.below(n);
  std::uint64_t j = n > 1 ? random.below(n - 1) : i;
  if (n > 1 && j >= i) ++j;
  Pair out;
  std::uint64_t rank = 0;
  for (Backend* b : backends) {
    if (!ctx.eligible(b)) continue;
    if (rank == i) out.first = b;
    if (rank == j && n > 1) out.second = b;
    ++rank;
  }
  return out;
}

}  // namespace policy_detail
}  // namespace stampede::balancer
