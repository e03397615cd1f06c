// Sticky sessions by a request header, with rendezvous (highest random weight) hashing over
// every configured backend: a key goes to the eligible backend with the highest score
// hash(key, backend). When a backend dies only the keys whose top score was on it move (1/N of
// them), each to its own second choice, and they come back when it recovers; the guide's
// `hash % live` moved (N-1)/N. Weighted backends use the logarithmic method (score =
// -weight / ln(u)), which keeps both properties. Requests without the header go round robin.
#include <cmath>
#include <vector>

#include "balancer/policy.h"

namespace stampede::balancer {
namespace {

// FNV-1a, then a strong finaliser: cheap, stable across runs and machines.
std::uint64_t hash_bytes(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class Sticky final : public Policy {
 public:
  explicit Sticky(const PolicyParams& params)
      : backends_(params.backends.begin(), params.backends.end()),
        fallback_(make_round_robin(params)) {
    for (Backend* b : backends_) {
      seeds_.push_back(mix(hash_bytes(b->name())));
      if (b->weight() != backends_.front()->weight()) weighted_ = true;
    }
  }

  Backend* pick(const RequestContext& ctx) override {
    if (ctx.session.empty()) return fallback_->pick(ctx);
    const std::uint64_t key = hash_bytes(ctx.session);
    Backend* best = nullptr;
    double best_score = 0;
    for (std::size_t i = 0; i < backends_.size(); ++i) {
      Backend* b = backends_[i];
      if (!ctx.eligible(b)) continue;
      double s = score(mix(key ^ seeds_[i]), b->weight());
      if (!best || s > best_score) {
        best = b;
        best_score = s;
      }
    }
    return best;
  }

 private:
  double score(std::uint64_t h, int weight) const {
    if (!weighted_) return static_cast<double>(h >> 11);  // order-preserving, exact in a double
    double u = (static_cast<double>(h >> 11) + 0.5) * 0x1.0p-53;  // in (0, 1)
    return -static_cast<double>(weight) / std::log(u);
  }

  std::vector<Backend*> backends_;
  std::vector<std::uint64_t> seeds_;  // per backend, from its name: stable across restarts
  std::unique_ptr<Policy> fallback_;
  bool weighted_ = false;
};

}  // namespace

std::unique_ptr<Policy> make_sticky(const PolicyParams& params) {
  return std::make_unique<Sticky>(params);
}

}  // namespace stampede::balancer
