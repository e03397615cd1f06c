// Policy: the one seam for load-balancing strategies (Envoy's LoadBalancer, HAProxy's lb_*.c).
//
// A worker owns one Policy over its own Backend views, so a policy's state (rotation cursor,
// EWMA, RNG) is per worker and needs no locking; up/down comes from the shared BackendState.
// With one worker (--cores 1) every strategy sees every request: rr is exact.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "balancer/backend.h"
#include "balancer/config.h"
#include "core/clock.h"
#include "core/random.h"

namespace stampede::balancer {

// What a policy may look at for one pick.
struct RequestContext {
  std::int64_t now_ns = 0;
  // The sticky header's value; empty when the request has none (sticky then falls back to rr).
  std::string_view session;
  // Backends already tried for this request (a retry must go elsewhere). Small: <= retries + 1.
  std::span<Backend* const> tried;

  bool excluded(const Backend* b) const {
    for (const Backend* t : tried) {
      if (t == b) return true;
    }
    return false;
  }
  bool eligible(const Backend* b) const { return b->live(now_ns) && !excluded(b); }
};

class Policy {
 public:
  virtual ~Policy() = default;

  // A live backend not in ctx.tried, or nullptr when there is none.
  virtual Backend* pick(const RequestContext& ctx) = 0;
  // An attempt on `backend` starts / ends (latency_ns: dispatch to complete response, only
  // meaningful when ok). Backend::in_flight() is already updated when these run.
  virtual void on_start(Backend& backend) { (void)backend; }
  virtual void on_finish(Backend& backend, bool ok, std::int64_t latency_ns) {
    (void)backend;
    (void)ok;
    (void)latency_ns;
  }
};

struct PolicyParams {
  std::span<Backend* const> backends;  // every configured backend, in configuration order
  std::uint64_t seed = 1;              // for the randomised strategies
  const Clock* clock = nullptr;        // for ewma's decay; nullptr: the monotonic clock
};

std::unique_ptr<Policy> make_round_robin(const PolicyParams& params);
std::unique_ptr<Policy> make_least(const PolicyParams& params);
std::unique_ptr<Policy> make_p2c(const PolicyParams& params);
std::unique_ptr<Policy> make_ewma(const PolicyParams& params);
std::unique_ptr<Policy> make_sticky(const PolicyParams& params);
std::unique_ptr<Policy> make_random(const PolicyParams& params);

std::unique_ptr<Policy> make_policy(Strategy strategy, const PolicyParams& params);

// Helpers shared by the randomised strategies.
namespace policy_detail {

// Two distinct eligible backends drawn uniformly (weights ignored), or one, or none (nullptr).
struct Pair {
  Backend* first = nullptr;
  Backend* second = nullptr;
};
Pair two_random_choices(std::span<Backend* const> backends, const RequestContext& ctx,
                        Random& random);

}  // namespace policy_detail

}  // namespace stampede::balancer
