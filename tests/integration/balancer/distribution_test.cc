// The guide's cases with three `stampede serve --id` instances: even split, a slow instance
// under rr and least, sticky sessions. Every response's x-backend must match its x-instance,
// and the instances' own /count must match the balancer's record.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "lb_support.h"

namespace stampede::balancer::testing {
namespace {

class ThreeInstances : public ::testing::Test {
 protected:
  void start(std::vector<std::string> c_extra = {}) {
    a_ = std::make_unique<ServeProcess>("a");
    b_ = std::make_unique<ServeProcess>("b");
    c_ = std::make_unique<ServeProcess>("c", c_extra);
    ASSERT_NE(a_->port(), 0);
    ASSERT_NE(b_->port(), 0);
    ASSERT_NE(c_->port(), 0);
  }
  BalancerConfig config(Strategy strategy) {
    return base_config({spec("a", a_->port()), spec("b", b_->port()), spec("c", c_->port())},
                       strategy);
  }
  std::uint64_t served(ServeProcess& p) { return p.served().value_or(0); }

  std::unique_ptr<ServeProcess> a_, b_, c_;
};

TEST_F(ThreeInstances, RoundRobinSplitsEvenlyToOneRequest) {
  start();
  auto lb = start_balancer(config(Strategy::RoundRobin));
  ASSERT_TRUE(lb);
  LoadResult r = run_load(lb->port(), load(12, 20000ms, 6000));
  EXPECT_EQ(r.failed, 0u);
  EXPECT_EQ(r.ok, 6000u);
  EXPECT_EQ(r.mismatched, 0u);
  std::uint64_t sa = served(*a_), sb = served(*b_), sc = served(*c_);
  EXPECT_EQ(sa + sb + sc, 6000u);
  EXPECT_EQ(std::max({sa, sb, sc}) - std::min({sa, sb, sc}), 0u);  // 6000 = 3 x 2000 exactly
  EXPECT_EQ(r.by_backend["a"], sa);
  EXPECT_EQ(r.by_backend["b"], sb);
  EXPECT_EQ(r.by_backend["c"], sc);
  auto stats = nlohmann::json::parse(lb->stats_json());
  for (auto& b : stats["backends"]) {
    EXPECT_EQ(b["sent"].get<std::uint64_t>(), 2000u) << b["name"];
    EXPECT_EQ(b["responses"].get<std::uint64_t>(), 2000u);
    EXPECT_EQ(b["in_flight"].get<std::int64_t>(), 0);
    EXPECT_EQ(b["latency_ms"]["count"].get<std::uint64_t>(), 2000u);
  }
}

TEST_F(ThreeInstances, SlowInstanceKeepsItsThirdUnderRoundRobin) {
  start({"--delay", "50"});
  auto lb = start_balancer(config(Strategy::RoundRobin));
  ASSERT_TRUE(lb);
  LoadResult r = run_load(lb->port(), load(12, 1500ms));
  EXPECT_EQ(r.failed, 0u);
  ASSERT_GT(r.ok, 0u);
  double share_c = static_cast<double>(r.by_backend["c"]) / static_cast<double>(r.ok);
  EXPECT_NEAR(share_c, 1.0 / 3, 0.01);  // round robin counts turns
}

TEST_F(ThreeInstances, LeastRoutesAroundTheSlowInstance) {
  start({"--delay", "50"});
  for (Strategy s : {Strategy::Least, Strategy::P2c, Strategy::Ewma}) {
    auto lb = start_balancer(config(s));
    ASSERT_TRUE(lb);
    LoadResult r = run_load(lb->port(), load(12, 1500ms));
    EXPECT_EQ(r.failed, 0u);
    EXPECT_EQ(r.mismatched, 0u);
    ASSERT_GT(r.ok, 0u);
    double share_c = static_cast<double>(r.by_backend["c"]) / static_cast<double>(r.ok);
    EXPECT_LT(share_c, 0.05) << strategy_name(s);
  }
}

TEST_F(ThreeInstances, StickySessionsStayPut) {
  start();
  auto lb = start_balancer(config(Strategy::Sticky));
  ASSERT_TRUE(lb);
  LoadOptions options = load(4, 20000ms, 1200);
  options.headers = [](int i) { return "x-session: s" + std::to_string(i + 1) + "\r\n"; };
  LoadResult r = run_load(lb->port(), options);
  EXPECT_EQ(r.failed, 0u);
  EXPECT_EQ(r.ok, 1200u);
  ASSERT_EQ(r.by_session.size(), 4u);
  for (auto& [session, backends] : r.by_session) {
    EXPECT_EQ(backends.size(), 1u) << "session " << session << " moved";
  }
  EXPECT_EQ(served(*a_) + served(*b_) + served(*c_), 1200u);
}

TEST_F(ThreeInstances, StickyHeaderNameIsConfigurable) {
  start();
  BalancerConfig c = config(Strategy::Sticky);
  c.sticky_header = "x-user";
  auto lb = start_balancer(c);
  ASSERT_TRUE(lb);
  std::set<std::string> seen;
  Client client(lb->port());
  for (int i = 0; i < 30; ++i) {
    auto r = client.get("/", "X-User: alice\r\n");
    ASSERT_TRUE(r);
    seen.insert(r->header("x-backend"));
  }
  EXPECT_EQ(seen.size(), 1u);
  seen.clear();
  for (int i = 0; i < 30; ++i) {
    auto r = client.get("/", "x-session: s1\r\n");  // not the sticky header now: round robin
    ASSERT_TRUE(r);
    seen.insert(r->header("x-backend"));
  }
  EXPECT_EQ(seen.size(), 3u);
}

TEST_F(ThreeInstances, WeightsAreHonoured) {
  start();
  BalancerConfig c = config(Strategy::RoundRobin);
  c.backends[0].weight = 3;
  auto lb = start_balancer(c);
  ASSERT_TRUE(lb);
  LoadResult r = run_load(lb->port(), load(4, 20000ms, 1000));
  EXPECT_EQ(r.ok, 1000u);
  EXPECT_EQ(r.by_backend["a"], 600u);
  EXPECT_EQ(r.by_backend["b"], 200u);
  EXPECT_EQ(r.by_backend["c"], 200u);
}

TEST_F(ThreeInstances, SeveralWorkersStillSplitEvenly) {
  start();
  BalancerConfig c = config(Strategy::RoundRobin);
  c.cores = 2;
  auto lb = start_balancer(c);
  ASSERT_TRUE(lb);
  LoadResult r = run_load(lb->port(), load(12, 20000ms, 3000));
  EXPECT_EQ(r.ok, 3000u);
  EXPECT_EQ(r.mismatched, 0u);
  // Per-worker rotations: each worker is exact, so the total is within one per worker.
  std::uint64_t lo = std::min({r.by_backend["a"], r.by_backend["b"], r.by_backend["c"]});
  std::uint64_t hi = std::max({r.by_backend["a"], r.by_backend["b"], r.by_backend["c"]});
  EXPECT_LE(hi - lo, 2u);
}

}  // namespace
}  // namespace stampede::balancer::testing
