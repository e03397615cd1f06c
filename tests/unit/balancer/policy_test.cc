// Every strategy over Backend views built without sockets: exact sequences, in-flight
// avoidance, stickiness and how many sticky keys move when a backend dies.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "balancer/backend.h"
#include "balancer/policy.h"
#include "core/clock.h"

namespace stampede::balancer {
namespace {

// N backends named a, b, c, ... (or by the given names), with their shared states.
class Pool {
 public:
  explicit Pool(std::vector<int> weights) {
    for (std::size_t i = 0; i < weights.size(); ++i) {
      BackendSpec spec{std::string(1, static_cast<char>('a' + i)), "127.0.0.1:1", weights[i]};
      if (weights.size() > 26) spec.name = "b" + std::to_string(i);
      states_.push_back(std::make_unique<BackendState>(i, spec, net::Address{}));
      views_.push_back(std::make_unique<Backend>(*states_.back()));
      ptrs_.push_back(views_.back().get());
    }
  }
  static Pool equal(std::size_t n) { return Pool(std::vector<int>(n, 1)); }

  std::span<Backend* const> backends() const { return ptrs_; }
  Backend& operator[](std::size_t i) { return *ptrs_[i]; }
  BackendState& state(std::size_t i) { return *states_[i]; }
  std::size_t size() const { return ptrs_.size(); }
  PolicyParams params(const Clock* clock = nullptr) const { return {ptrs_, 42, clock}; }

 private:
  std::vector<std::unique_ptr<BackendState>> states_;
  std::vector<std::unique_ptr<Backend>> views_;
  std::vector<Backend*> ptrs_;
};

std::string picks(Policy& policy, int n, const RequestContext& ctx = {}) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    Backend* b = policy.pick(ctx);
    out += b ? b->name() : "-";
  }
  return out;
}

TEST(RoundRobin, ExactRotation) {
  Pool pool = Pool::equal(3);
  auto rr = make_round_robin(pool.params());
  EXPECT_EQ(picks(*rr, 9), "abcabcabc");
}

TEST(RoundRobin, SmoothWeights) {
  Pool pool({5, 1, 1});
  auto rr = make_round_robin(pool.params());
  // nginx's smooth weighted round robin: the heavy backend is interleaved, not bunched.
  EXPECT_EQ(picks(*rr, 14), "aabacaaaabacaa");
}

TEST(RoundRobin, SkipsDeadAndExcluded) {
  Pool pool = Pool::equal(3);
  auto rr = make_round_robin(pool.params());
  pool.state(1).set_up(false);
  EXPECT_EQ(picks(*rr, 4), "acac");
  Backend* tried[] = {&pool[0]};
  RequestContext ctx{0, {}, tried};
  EXPECT_EQ(picks(*rr, 2, ctx), "cc");
  pool.state(0).set_up(false);
  pool.state(2).eject_until(100);
  EXPECT_EQ(rr->pick(RequestContext{50, {}, {}}), nullptr);
  EXPECT_EQ(rr->pick(RequestContext{100, {}, {}})->name(), "c");
}

TEST(RoundRobin, EvenOverManyRequests) {
  Pool pool = Pool::equal(3);
  auto rr = make_round_robin(pool.params());
  std::map<std::string, int> counts;
  for (int i = 0; i < 37678; ++i)
    ++counts[rr->pick({})->name()];
  int lo = std::min({counts["a"], counts["b"], counts["c"]});
  int hi = std::max({counts["a"], counts["b"], counts["c"]});
  EXPECT_LE(hi - lo, 1);  // one request apart, as in the guide
}

TEST(Least, HeldRequestsSendTheNextElsewhere) {
  for (int k : {1, 3, 10}) {
    Pool pool = Pool::equal(3);
    auto least = make_least(pool.params());
    for (int i = 0; i < k; ++i)
      pool[0].on_start();  // k requests held on a
    for (int i = 0; i < k; ++i) {
      Backend* b = least->pick({});
      ASSERT_NE(b, &pool[0]) << "k=" << k << " i=" << i;
      b->on_start();  // they stay in flight too
    }
  }
}

TEST(Least, TiesRotate) {
  Pool pool = Pool::equal(3);
  auto least = make_least(pool.params());
  EXPECT_EQ(picks(*least, 6), "abcabc");
}

// The guide's slow-instance case as a discrete-event simulation: 12 closed-loop clients,
// backends a and b answer in 1 tick, c in 50. Returns c's share of the requests.
double slow_share(Strategy strategy) {
  Pool pool = Pool::equal(3);
  auto policy = make_policy(strategy, pool.params());
  using Event = std::pair<int, Backend*>;  // (completion tick, backend)
  std::priority_queue<Event, std::vector<Event>, std::greater<>> pending;
  int slow = 0;
  const int total = 20000;
  auto issue = [&](int now) {
    Backend* b = policy->pick({});
    b->on_start();
    if (b == &pool[2]) ++slow;
    pending.emplace(now + (b == &pool[2] ? 50 : 1), b);
  };
  for (int c = 0; c < 12; ++c)
    issue(0);
  for (int sent = 12; sent < total; ++sent) {
    auto [tick, b] = pending.top();
    pending.pop();
    b->on_finish(true, 1);
    policy->on_finish(*b, true, b == &pool[2] ? 50 : 1);
    issue(tick);
  }
  return static_cast<double>(slow) / total;
}

TEST(Least, SlowBackendGetsLittle) {
  EXPECT_GT(slow_share(Strategy::RoundRobin), 0.33);  // rr counts turns: a full third
  EXPECT_LT(slow_share(Strategy::Least), 0.03);
  EXPECT_LT(slow_share(Strategy::P2c), 0.05);
}

TEST(PowerOfTwo, PrefersFewerInFlight) {
  Pool pool = Pool::equal(2);
  auto p2c = make_p2c(pool.params());
  pool[0].on_start();
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(p2c->pick({}), &pool[1]);
}

TEST(PowerOfTwo, SpreadsEvenlyWhenIdle) {
  Pool pool = Pool::equal(4);
  auto p2c = make_p2c(pool.params());
  std::map<std::string, int> counts;
  for (int i = 0; i < 8000; ++i)
    ++counts[p2c->pick({})->name()];
  for (auto& [name, n] : counts)
    EXPECT_NEAR(n, 2000, 300) << name;
  EXPECT_EQ(counts.size(), 4u);
}

TEST(PowerOfTwo, NeverPicksTheBusiestOfThree) {
  // Two random distinct choices out of three always include one of the two idle backends.
  Pool pool = Pool::equal(3);
  auto p2c = make_p2c(pool.params());
  pool[1].on_start();
  for (int i = 0; i < 1000; ++i)
    EXPECT_NE(p2c->pick({}), &pool[1]);
}

TEST(Ewma, AvoidsTheSlowBackend) {
  ManualClock clock(1'000'000'000);
  Pool pool = Pool::equal(3);
  auto ewma = make_ewma(pool.params(&clock));
  // Teach it: a and b answer in 1 ms, c in 50 ms.
  for (std::size_t i = 0; i < 3; ++i) {
    pool[i].on_start();
    pool[i].on_finish(true, 0);
    ewma->on_finish(pool[i], true, i == 2 ? 50'000'000 : 1'000'000);
  }
  int slow = 0;
  for (int i = 0; i < 3000; ++i) {
    clock.advance(std::chrono::microseconds(100));
    Backend* b = ewma->pick({});
    if (b == &pool[2]) ++slow;
    ewma->on_finish(*b, true, b == &pool[2] ? 50'000'000 : 1'000'000);
  }
  EXPECT_EQ(slow, 0);
}

TEST(Ewma, InFlightRaisesCost) {
  ManualClock clock(1'000'000'000);
  Pool pool = Pool::equal(2);
  auto ewma = make_ewma(pool.params(&clock));
  ewma->on_finish(pool[0], true, 1'000'000);
  ewma->on_finish(pool[1], true, 1'000'000);
  for (int i = 0; i < 3; ++i)
    pool[0].on_start();  // a: 1 ms x 4, b: 1 ms x 1
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(ewma->pick({}), &pool[1]);
}

TEST(Ewma, SlowBackendIsRetriedAfterDecay) {
  ManualClock clock(1'000'000'000);
  Pool pool = Pool::equal(2);
  auto ewma = make_ewma(pool.params(&clock));
  ewma->on_finish(pool[0], true, 1'000'000);
  ewma->on_finish(pool[1], true, 500'000'000);
  EXPECT_EQ(ewma->pick({}), &pool[0]);
  clock.advance(std::chrono::seconds(120));  // b's peak decays toward zero without samples
  ewma->on_finish(pool[0], true, 1'000'000);
  EXPECT_EQ(ewma->pick({}), &pool[1]);
}

std::string session_name(int i) {
  return "session-" + std::to_string(i);
}

TEST(Sticky, StaysPutFor1000Requests) {
  Pool pool = Pool::equal(3);
  auto sticky = make_sticky(pool.params());
  for (int s = 0; s < 4; ++s) {
    std::string key = session_name(s);
    Backend* first = sticky->pick(RequestContext{0, key, {}});
    ASSERT_NE(first, nullptr);
    for (int i = 0; i < 1000; ++i)
      ASSERT_EQ(sticky->pick(RequestContext{0, key, {}}), first);
  }
}

TEST(Sticky, WithoutHeaderFallsBackToRoundRobin) {
  Pool pool = Pool::equal(3);
  auto sticky = make_sticky(pool.params());
  EXPECT_EQ(picks(*sticky, 6), "abcabc");
}

TEST(Sticky, SpreadsKeys) {
  Pool pool = Pool::equal(3);
  auto sticky = make_sticky(pool.params());
  std::map<std::string, int> counts;
  for (int s = 0; s < 9000; ++s) {
    std::string key = session_name(s);
    ++counts[sticky->pick(RequestContext{0, key, {}})->name()];
  }
  for (auto& [name, n] : counts)
    EXPECT_NEAR(n, 3000, 300) << name;
}

// When one of N dies only its own keys move (at most 1/N + 2% of 10 000), every moved key
// was on the dead backend, and they all come back when it recovers.
void check_minimal_disruption(std::size_t n) {
  Pool pool = Pool::equal(n);
  auto sticky = make_sticky(pool.params());
  const int keys = 10000;
  std::vector<Backend*> before(keys), during(keys);
  for (int s = 0; s < keys; ++s) {
    std::string key = session_name(s);
    before[s] = sticky->pick(RequestContext{0, key, {}});
  }
  pool.state(n / 2).set_up(false);
  int moved = 0;
  for (int s = 0; s < keys; ++s) {
    std::string key = session_name(s);
    during[s] = sticky->pick(RequestContext{0, key, {}});
    if (during[s] != before[s]) {
      ++moved;
      EXPECT_EQ(before[s], &pool[n / 2]) << "a key on a live backend moved";
    }
  }
  EXPECT_LE(moved, keys / static_cast<int>(n) + keys / 50) << "N=" << n;
  EXPECT_GT(moved, 0);
  pool.state(n / 2).set_up(true);
  for (int s = 0; s < keys; ++s) {
    std::string key = session_name(s);
    EXPECT_EQ(sticky->pick(RequestContext{0, key, {}}), before[s]);
  }
}

TEST(Sticky, OneDeathMovesOnlyItsKeysN3) {
  check_minimal_disruption(3);
}
TEST(Sticky, OneDeathMovesOnlyItsKeysN5) {
  check_minimal_disruption(5);
}
TEST(Sticky, OneDeathMovesOnlyItsKeysN10) {
  check_minimal_disruption(10);
}

TEST(Sticky, ModuloHashingWouldMoveMost) {
  // The guide's hash % live, for contrast: with 3 backends one death moves about 2/3.
  const int keys = 10000;
  int moved = 0;
  for (int s = 0; s < keys; ++s) {
    std::size_t h = std::hash<std::string>{}(session_name(s));
    std::size_t before = h % 3;
    std::size_t after_live = h % 2;  // live list {a, c} when b (index 1) dies
    std::size_t after = after_live == 0 ? 0 : 2;
    if (before != after) ++moved;
  }
  EXPECT_GT(moved, keys / 2);
}

TEST(Sticky, WeightedKeepsProportionsAndStability) {
  Pool pool({3, 1, 1});
  auto sticky = make_sticky(pool.params());
  std::map<std::string, int> counts;
  for (int s = 0; s < 10000; ++s) {
    std::string key = session_name(s);
    ++counts[sticky->pick(RequestContext{0, key, {}})->name()];
  }
  EXPECT_NEAR(counts["a"], 6000, 400);
  EXPECT_NEAR(counts["b"], 2000, 400);
}

TEST(Random, FollowsWeights) {
  Pool pool({2, 1, 1});
  auto random = make_random(pool.params());
  std::map<std::string, int> counts;
  for (int i = 0; i < 8000; ++i)
    ++counts[random->pick({})->name()];
  EXPECT_NEAR(counts["a"], 4000, 300);
  EXPECT_NEAR(counts["b"], 2000, 300);
  EXPECT_NEAR(counts["c"], 2000, 300);
}

TEST(AllPolicies, NoneLiveGivesNull) {
  for (Strategy s : {Strategy::RoundRobin, Strategy::Least, Strategy::P2c, Strategy::Ewma,
                     Strategy::Sticky, Strategy::Random}) {
    Pool pool = Pool::equal(3);
    auto policy = make_policy(s, pool.params());
    for (std::size_t i = 0; i < 3; ++i)
      pool.state(i).set_up(false);
    EXPECT_EQ(policy->pick(RequestContext{0, "k", {}}), nullptr) << strategy_name(s);
    pool.state(1).set_up(true);
    EXPECT_EQ(policy->pick(RequestContext{0, "k", {}}), &pool[1]) << strategy_name(s);
  }
}

}  // namespace
}  // namespace stampede::balancer
