// Latency-aware: peak EWMA of response time times (requests in flight + 1), between two random
// choices (Finagle's PeakEwma, Linkerd's default). The average jumps to any latency above it
// at once ("peak") and otherwise decays toward new samples with time constant kDecayNs; between
// samples it also decays toward zero, so a backend that was slow is tried again after a while.
// A backend with no sample yet costs nothing: new and recovered backends are tried first.
#include <cmath>
#include <vector>

#include "balancer/policy.h"

namespace stampede::balancer {
namespace {

constexpr double kDecayNs = 10e9;  // Finagle's and Linkerd's default decay time: 10 s

class Ewma final : public Policy {
 public:
  explicit Ewma(const PolicyParams& params)
      : backends_(params.backends.begin(), params.backends.end()),
        state_(backends_.size()),
        random_(params.seed),
        clock_(params.clock) {}

  Backend* pick(const RequestContext& ctx) override {
    auto pair = policy_detail::two_random_choices(backends_, ctx, random_);
    if (!pair.second) return pair.first;
    std::int64_t now = now_ns();
    return cost(*pair.second, now) < cost(*pair.first, now) ? pair.second : pair.first;
  }

  void on_finish(Backend& backend, bool ok, std::int64_t latency_ns) override {
    if (!ok) return;  // failures take the backend out of rotation; no sample to learn from
    State& s = state_[backend.index()];
    std::int64_t now = now_ns();
    double rtt = static_cast<double>(latency_ns);
    double current = decayed(s, now);
    if (rtt > current) {
      s.ewma_ns = rtt;
    } else {
      double w = std::exp(-static_cast<double>(now - s.stamp_ns) / kDecayNs);
      s.ewma_ns = s.ewma_ns * w + rtt * (1.0 - w);
    }
    s.stamp_ns = now;
  }

 private:
  struct State {
    double ewma_ns = 0;
    std::int64_t stamp_ns = 0;
  };

  std::int64_t now_ns() const { return clock_ ? clock_->now_ns() : mono_ns(); }

  double decayed(const State& s, std::int64_t now) const {
    if (s.ewma_ns == 0) return 0;
    return s.ewma_ns * std::exp(-static_cast<double>(now - s.stamp_ns) / kDecayNs);
  }

  double cost(Backend& b, std::int64_t now) const {
    const State& s = state_[b.index()];
    return decayed(s, now) * static_cast<double>(b.in_flight() + 1) / b.weight();
  }

  std::vector<Backend*> backends_;
  std::vector<State> state_;  // by Backend::index()
  Random random_;
  const Clock* clock_;
};

}  // namespace

std::unique_ptr<Policy> make_ewma(const PolicyParams& params) {
  return std::make_unique<Ewma>(params);
}

}  // namespace stampede::balancer
