// Parse once, for the lab: its configuration goes from an entry point (the command line, the
// tests) into the engine through prepare() alone. run_lab takes only a plan (a compile-time fact,
// below); the plan holds what the engine used to look up or parse again (each scenario's
// instance, the load strategies, the runs, --balancer-url's host and port), and every refusal
// comes from prepare(), in one wording.
#include "lab/plan.h"

#include <gtest/gtest.h>

#include <functional>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "lab/lab.h"

namespace stampede::lab {
namespace {

using std::chrono::milliseconds;

static_assert(std::is_same_v<decltype(&run_lab), Expected<LabResult> (*)(const LabPlan&, Interrupt&,
                                                                         std::ostream*, LiveRuns*)>,
              "the lab runs from a plan only");
static_assert(!std::is_convertible_v<LabConfig, LabPlan>, "a config is not a plan");
static_assert(!std::is_invocable_v<decltype(&run_lab), const LabConfig&, Interrupt&, std::ostream*,
                                   LiveRuns*>,
              "run_lab cannot be called with a config");

LabConfig three_instances() {
  LabConfig config;
  config.instances = default_instances(3);
  return config;
}

TEST(LabPlan, PrepareFillsTheDefaultsFindsTheInstancesAndLaysOutTheRuns) {
  LabConfig config = three_instances();
  config.kill_instance = "a";
  auto plan = prepare(config);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->config.slow_instance, "c");
  EXPECT_EQ(plan->config.stampede_path, "/proc/self/exe");
  EXPECT_EQ(plan->slow, 2u);
  EXPECT_EQ(plan->kill, 0u);
  EXPECT_EQ(plan->limit, 2u);
  EXPECT_EQ(plan->hang, 2u);
  EXPECT_EQ(plan->load_strategies, (std::vector<std::string>{"rr", "least"}));
  EXPECT_FALSE(plan->balancer_url.has_value());
  // even and slow per load strategy, sticky, outage per health interval (0, 1000, 200).
  ASSERT_EQ(plan->runs.size(), 8u);
  EXPECT_EQ(plan->runs[0].scenario, ScenarioKind::Even);
  EXPECT_EQ(plan->runs[3].pool, Pool::Slow);
  EXPECT_EQ(plan->runs[4].strategy, "sticky");
  EXPECT_EQ(plan->runs[7].scenario, ScenarioKind::Outage);
  EXPECT_EQ(plan->runs[7].health, milliseconds(200));
}

TEST(LabPlan, AnExternalBalancersUrlIsParsedIntoThePlan) {
  LabConfig config = three_instances();
  config.balancer.kind = BalancerKind::External;
  config.balancer.url = "http://[::1]:9745/";
  config.scenarios = {ScenarioKind::Even, ScenarioKind::Outage};
  auto plan = prepare(config);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_TRUE(plan->balancer_url.has_value());
  EXPECT_EQ(plan->balancer_url->host, "::1");
  EXPECT_EQ(plan->balancer_url->port, 9745);
  EXPECT_EQ(plan->load_strategies, (std::vector<std::string>{""}));
  ASSERT_EQ(plan->runs.size(), 2u);  // one run per scenario, health as it is configured
  EXPECT_FALSE(plan->runs[1].health.has_value());
  // A scenario's instance that is not in the pool is refused only when the scenario runs.
  config.hang_instance = "z";
  plan = prepare(config);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->hang, 3u);
}

// Every check, one case each, with its one line: prepare() and validate() refuse alike.
TEST(LabPlan, EveryCheckRefusesInOneLine) {
  struct Case {
    std::function<void(LabConfig&)> set;
    std::string message;
  };
  const std::string strategy_rule = "a strategy is 1 to 64 letters, digits and - _ . : = ( ) only";
  const std::vector<Case> cases = {
      {[](LabConfig& c) { c.instances[1].name = "b c"; },
       "instance name 'b c': use 1 to 32 letters, digits, '-', '_' or '.'"},
      {[](LabConfig& c) { c.instances[1].name = "a"; }, "instance 'a' is given twice"},
      {[](LabConfig& c) { c.instances = default_instances(1); },
       "the lab needs 2 to 26 instances, got 1"},
      {[](LabConfig& c) { c.instances[0].host = "10.0.0.1"; },
       "instance a: '10.0.0.1' is not a loopback address (the lab only uses 127.0.0.1 and ::1)"},
      {[](LabConfig& c) { c.instances[0].delay = milliseconds(10'001); },
       "--delay a: at most 10000 ms"},
      {[](LabConfig& c) {
         c.balancer.kind = BalancerKind::External;
         c.balancer.url = "https://127.0.0.1:1/";
       },
       "--balancer-url: only http:// URLs"},
      {[](LabConfig& c) { c.balancer.kind = BalancerKind::Command; },
       "--balancer-cmd: empty command"},
      {[](LabConfig& c) { c.balancer.start_timeout = milliseconds(0); },
       "--start-timeout: above 0 and at most 10m"},
      {[](LabConfig& c) { c.balancer.strategies.clear(); }, "--strategies: no strategy"},
      {[](LabConfig& c) { c.balancer.sticky_strategy = "a b"; },
       "--sticky-strategy: " + strategy_rule},
      {[](LabConfig& c) {
         c.balancer.strategies = {"rr", "", "sticky"};
       },
       "--strategies: empty strategy name"},
      {[](LabConfig& c) {
         c.balancer.strategies = {"rr", "rr", "sticky"};
       },
       "--strategies: 'rr' is given twice"},
      {[](LabConfig& c) {
         c.scenarios = {ScenarioKind::H2};
         c.balancer.strategies = {"sticky"};
       },
       "even, slow, outage, limit, hang and h2 need a strategy other than the sticky one in "
       "--strategies"},
      {[](LabConfig& c) {
         c.scenarios = {ScenarioKind::Hang};
         c.hang_instance = "z";
       },
       "--hang: no instance named 'z'"},
      {[](LabConfig& c) {
         c.scenarios = {ScenarioKind::Hang};
         c.hang_for = std::chrono::seconds(4);
       },
       "--hang-for must be above 0 and end before --outage-duration (it starts at --kill-after)"},
      {[](LabConfig& c) {
         c.scenarios = {ScenarioKind::Hang};
         c.backend_timeout = milliseconds(0);
       },
       "--backend-timeout: 1 to 60000 ms"},
      {[](LabConfig& c) { c.scenarios.clear(); }, "--scenarios: no scenario"},
      {[](LabConfig& c) { c.slow_delay = milliseconds(0); },
       "--slow: the delay must be 1 to 10000 ms"},
      {[](LabConfig& c) { c.kill_instance = "z"; }, "--kill: no instance named 'z'"},
      {[](LabConfig& c) { c.sessions = 65; }, "--sessions: 1 to 64"},
      {[](LabConfig& c) { c.session_requests = 0; }, "--session-requests: 1 to 1000000"},
      {[](LabConfig& c) { c.health_intervals.clear(); }, "--health-intervals: no interval"},
      {[](LabConfig& c) { c.health_intervals = {milliseconds(60'001)}; },
       "--health-intervals: 0 to 60000 ms"},
      {[](LabConfig& c) { c.kill_after = c.outage_duration; },
       "--kill-after must be above 0 and below --outage-duration (at most 10m)"},
      {[](LabConfig& c) { c.load.connections = 10'001; },
       "-c/--connections: 1 to 10000 connections"},
      {[](LabConfig& c) { c.load.duration = std::chrono::nanoseconds(0); },
       "-t/--duration: above 0 and at most 10m"},
      {[](LabConfig& c) { c.load.cores = 65; }, "--cores: 1 to 64"},
  };
  ASSERT_TRUE(prepare(three_instances()).ok());
  for (const Case& c : cases) {
    LabConfig config = three_instances();
    c.set(config);
    auto plan = prepare(config);
    ASSERT_FALSE(plan.ok()) << c.message;
    EXPECT_EQ(plan.error().message, c.message);
    apply_defaults(config);
    auto valid = validate(config);
    ASSERT_FALSE(valid.ok()) << c.message;
    EXPECT_EQ(valid.error().message, c.message);
  }
}

}  // namespace
}  // namespace stampede::lab
