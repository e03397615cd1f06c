// Round robin, smoothly weighted (nginx's smooth weighted round robin): every pick adds each
// eligible backend's weight to its score, takes the highest score and subtracts the total.
// Equal weights give the exact rotation a, b, c, a, ...; weights 5,1,1 give a a b a c a a.
#include <vector>

#include "balancer/policy.h"

namespace stampede::balancer {
namespace {

class RoundRobin final : public Policy {
 public:
  explicit RoundRobin(const PolicyParams& params)
      : backends_(params.backends.begin(), params.backends.end()), score_(backends_.size(), 0) {}

  Backend* pick(const RequestContext& ctx) override {
    std::int64_t total = 0;
    std::size_t best = backends_.size();
    for (std::size_t i = 0; i < backends_.size(); ++i) {
      Backend* b = backends_[i];
      if (!ctx.eligible(b)) continue;
      score_[i] += b->weight();
      total += b->weight();
      if (best == backends_.size() || score_[i] > score_[best]) best = i;
    }
    if (best == backends_.size()) return nullptr;
    score_[best] -= total;
    return backends_[best];
  }

 private:
  std::vector<Backend*> backends_;
  std::vector<std::int64_t> score_;
};

}  // namespace

std::unique_ptr<Policy> make_round_robin(const PolicyParams& params) {
  return std::make_unique<RoundRobin>(params);
}

}  // namespace stampede::balancer
