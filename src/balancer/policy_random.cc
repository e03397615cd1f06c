// Random: each eligible backend with probability weight / total weight of the eligible ones.
#include <vector>

#include "balancer/policy.h"

namespace stampede::balancer {
namespace {

class RandomPolicy final : public Policy {
 public:
  explicit RandomPolicy(const PolicyParams& params)
      : backends_(params.backends.begin(), params.backends.end()), random_(params.seed) {}

  Backend* pick(const RequestContext& ctx) override {
    std::uint64_t total = 0;
    for (Backend* b : backends_)
      total += ctx.eligible(b) ? b->weight() : 0;
    if (total == 0) return nullptr;
    std::uint64_t r = random_.below(total);
    for (Backend* b : backends_) {
      if (!ctx.eligible(b)) continue;
      if (r < static_cast<std::uint64_t>(b->weight())) return b;
      r -= b->weight();
    }
    return nullptr;
  }

 private:
  std::vector<Backend*> backends_;
  Random random_;
};

}  // namespace

std::unique_ptr<Policy> make_random(const PolicyParams& params) {
  return std::make_unique<RandomPolicy>(params);
}

}  // namespace stampede::balancer
