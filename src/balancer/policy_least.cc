// Least requests in flight (HAProxy's leastconn), weighted: the lowest in_flight / weight.
// Ties are broken in rotation: the scan starts after the previous pick, and the first backend
// at the minimum wins, so equally loaded backends take turns instead of the first one winning.
#include <vector>

#include "balancer/policy.h"

namespace stampede::balancer {
namespace {

class Least final : public Policy {
 public:
  explicit Least(const PolicyParams& params)
      : backends_(params.backends.begin(), params.backends.end()) {}

  Backend* pick(const RequestContext& ctx) override {
    const std::size_t n = backends_.size();
    Backend* best = nullptr;
    std::size_t best_index = 0;
    for (std::size_t k = 1; k <= n; ++k) {
      std::size_t i = (cursor_ + k) % n;
      Backend* b = backends_[i];
      if (!ctx.eligible(b)) continue;
      // b->in_flight / b->weight < best->in_flight / best->weight, without division.
      if (!best || b->in_flight() * best->weight() < best->in_flight() * b->weight()) {
        best = b;
        best_index = i;
      }
    }
    if (best) cursor_ = best_index;
    return best;
  }

 private:
  std::vector<Backend*> backends_;
  std::size_t cursor_ = static_cast<std::size_t>(-1);  // so that the first scan starts at 0
};

}  // namespace

std::unique_ptr<Policy> make_least(const PolicyParams& params) {
  return std::make_unique<Least>(params);
}

}  // namespace stampede::balancer
