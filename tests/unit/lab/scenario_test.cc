#include "lab/scenario.h"

#include <gtest/gtest.h>

namespace stampede::lab {
namespace {

using std::chrono::milliseconds;

TEST(LabScenario, ParsesNamesInCanonicalOrder) {
  auto s = parse_scenarios("outage,even");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, (std::vector<ScenarioKind>{ScenarioKind::Even, ScenarioKind::Outage}));
  EXPECT_FALSE(parse_scenarios("even,even").ok());
  EXPECT_FALSE(parse_scenarios("even,").ok());
  EXPECT_FALSE(parse_scenarios("").ok());
  auto bad = parse_scenarios("evn");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "--scenarios: unknown scenario 'evn' (even, slow, sticky, outage, limit, hang, h2)");
}

// The names, the list of every scenario and the parsing come from one table: each name parses
// back to its scenario, in the canonical order.
TEST(LabScenario, EveryScenarioNameParsesBackToIt) {
  const std::vector<ScenarioKind> all = all_scenarios();
  ASSERT_EQ(all.size(), 7u);
  std::string names;
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(all[i]), i);
    auto one = parse_scenarios(scenario_name(all[i]));
    ASSERT_TRUE(one.ok()) << scenario_name(all[i]);
    EXPECT_EQ(*one, std::vector<ScenarioKind>{all[i]});
    names += (names.empty() ? "" : ",") + std::string(scenario_name(all[i]));
  }
  EXPECT_EQ(names, "even,slow,sticky,outage,limit,hang,h2");
}

TEST(LabScenario, PlanRunsEachStrategyThenStickyThenEachInterval) {
  PlanInput in{
      default_scenarios(), {"rr", "least"}, "sticky", {milliseconds(0), milliseconds(200)}, false};
  const auto plan = plan_runs(in);
  ASSERT_EQ(plan.size(), 7u);
  EXPECT_EQ(plan[0].scenario, ScenarioKind::Even);
  EXPECT_EQ(plan[1].strategy, "least");
  EXPECT_EQ(plan[2].scenario, ScenarioKind::Slow);
  EXPECT_EQ(plan[2].pool, Pool::Slow);
  EXPECT_EQ(plan[4].scenario, ScenarioKind::Sticky);
  EXPECT_EQ(plan[4].strategy, "sticky");
  EXPECT_EQ(plan[4].pool, Pool::Even);
  EXPECT_EQ(plan[5].scenario, ScenarioKind::Outage);
  EXPECT_EQ(plan[5].strategy, "rr");
  EXPECT_EQ(plan[5].health, milliseconds(0));
  EXPECT_EQ(plan[6].health, milliseconds(200));
  EXPECT_EQ(plan[0].health, milliseconds(0));  // checks off outside the outage
}

TEST(LabScenario, AFixedBalancerRunsOncePerScenarioWithItsOwnHealth) {
  PlanInput in{default_scenarios(), {""}, "", {milliseconds(0), milliseconds(200)}, true};
  const auto plan = plan_runs(in);
  ASSERT_EQ(plan.size(), 4u);
  for (const RunPlan& run : plan) {
    EXPECT_EQ(run.strategy, "");
    EXPECT_FALSE(run.health.has_value());
  }
}

TEST(LabScenario, HangRunsOncePerIntervalWithTheBackendTimeout) {
  PlanInput in{{ScenarioKind::Hang},
               {"rr", "least"},
               "sticky",
               {milliseconds(0), milliseconds(200)},
               false,
               true,
               milliseconds(700)};
  const auto plan = plan_runs(in);
  ASSERT_EQ(plan.size(), 2u);
  for (const RunPlan& run : plan) {
    EXPECT_EQ(run.scenario, ScenarioKind::Hang);
    EXPECT_EQ(run.strategy, "rr");
    EXPECT_EQ(run.backend_timeout, milliseconds(700));
  }
  EXPECT_EQ(plan[0].health, milliseconds(0));
  EXPECT_EQ(plan[1].health, milliseconds(200));
  auto names = parse_scenarios("hang,even");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<ScenarioKind>{ScenarioKind::Even, ScenarioKind::Hang}));
  EXPECT_EQ(default_scenarios().size() + 3, all_scenarios().size())
      << "limit, hang and h2 run when asked";
}

}  // namespace
}  // namespace stampede::lab
