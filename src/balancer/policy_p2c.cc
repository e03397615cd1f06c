// Power of two random choices by requests in flight (Envoy's least_request with choice_count 2,
// HAProxy's "random(2)"): draw two distinct eligible backends, keep the one with fewer requests
// in flight per unit of weight; a tie goes to the first draw, which is itself random.
#include <vector>

#include "balancer/policy.h"

namespace stampede::balancer {
namespace {

class PowerOfTwo final : public Policy {
 public:
  explicit PowerOfTwo(const PolicyParams& params)
      : backends_(params.backends.begin(), params.backends.end()), random_(params.seed) {}

  Backend* pick(const RequestContext& ctx) override {
    auto pair = policy_detail::two_random_choices(backends_, ctx, random_);
    if (!pair.second) return pair.first;
    Backend* a = pair.first;
    Backend* b = pair.second;
    return b->in_flight() * a->weight() < a->in_flight() * b->weight() ? b : a;
  }

 private:
  std::vector<Backend*> backends_;
  Random random_;
};

}  // namespace

std::unique_ptr<Policy> make_p2c(const PolicyParams& params) {
  return std::make_unique<PowerOfTwo>(params);
}

}  // namespace stampede::balancer
