// The limit scenario's plan, checks and findings, from hand-made records.
#include "lab/limit.h"

#include "lab/balancer_proc.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "lab_records.h"

namespace stampede::lab {
namespace {

using std::chrono::milliseconds;
using testing::make_run;

RunRecord limit_run(std::string strategy, int retries, std::uint64_t c_served,
                    std::uint64_t errors) {
  RunRecord run = make_run(ScenarioKind::Limit, std::move(strategy),
                           {{"a", 0, 1000}, {"b", 0, 1000}, {"c", 0, c_served}}, 1000, errors);
  run.health_ms = 0;
  run.retries = retries;
  run.instances[2].max_connections = 2;
  return run;
}

std::vector<Finding> limit_findings(const std::vector<Finding>& all) {
  return testing::of_kind(
      all, {FindingKind::LimitRoutedAround, FindingKind::LimitFailures, FindingKind::LimitSummary});
}

TEST(LabLimit, PlansEachStrategyWithAndWithoutRetriesOnTheBuiltInBalancer) {
  PlanInput in{{ScenarioKind::Limit}, {"rr", "least"}, "sticky", {milliseconds(200)}, false};
  const auto plan = plan_runs(in);
  ASSERT_EQ(plan.size(), 4u);
  EXPECT_EQ(plan[0].strategy, "rr");
  EXPECT_EQ(plan[0].retries, 1);
  EXPECT_EQ(plan[1].retries, 0);
  EXPECT_EQ(plan[3].strategy, "least");
  for (const RunPlan& run : plan) {
    EXPECT_EQ(run.scenario, ScenarioKind::Limit);
    EXPECT_EQ(run.pool, Pool::Limit);
    EXPECT_EQ(run.health, milliseconds(0));  // checks off: the refusals alone decide
  }
  in.varies_retries = false;  // a command without {retries}: its retries are its own
  const auto command = plan_runs(in);
  ASSERT_EQ(command.size(), 2u);
  EXPECT_FALSE(command[0].retries.has_value());
  in.fixed_balancer = true;
  in.load_strategies = {""};
  const auto external = plan_runs(in);
  ASSERT_EQ(external.size(), 1u);
  EXPECT_FALSE(external[0].health.has_value());
}

TEST(LabLimit, IsNotADefaultScenarioButParsesByName) {
  const auto defaults = default_scenarios();
  EXPECT_EQ(std::count(defaults.begin(), defaults.end(), ScenarioKind::Limit), 0);
  auto parsed = parse_scenarios("limit,even");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, (std::vector<ScenarioKind>{ScenarioKind::Even, ScenarioKind::Limit}));
}

TEST(LabLimit, ValidateNamesTheInstanceAndBoundsTheCap) {
  LabConfig config;
  config.instances = default_instances(3);
  config.scenarios = {ScenarioKind::Limit};
  apply_defaults(config);
  EXPECT_EQ(config.limit_instance, "c");
  EXPECT_TRUE(validate(config).ok());
  config.limit_instance = "z";
  auto bad = validate(config);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "--limit: no instance named 'z'");
  config.limit_instance = "a";
  for (std::uint32_t cap : {0u, 1001u}) {
    config.limit_connections = cap;
    auto r = validate(config);
    ASSERT_FALSE(r.ok()) << cap;
    EXPECT_NE(r.error().message.find("--limit"), std::string::npos);
  }
  config.scenarios = {ScenarioKind::Even};  // not asked for: not checked
  EXPECT_TRUE(validate(config).ok());
}

TEST(LabLimit, FindingsNameTheRunsThatPassedRefusalsToClients) {
  const std::vector<RunRecord> runs = {limit_run("rr", 1, 700, 0), limit_run("rr", 0, 600, 37),
                                       limit_run("least", 1, 900, 0)};
  const auto all = read_runs(runs);
  EXPECT_TRUE(all_checks_hold(all));  // failures are this scenario's subject, not a failed check
  const auto found = limit_findings(all);
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(found[0].kind, FindingKind::LimitRoutedAround);
  EXPECT_EQ(found[0].scope, "limit/rr/retries=1");
  EXPECT_NE(found[0].text.find("c (refusing past 2 connections) served 25.9%"), std::string::npos)
      << found[0].text;
  EXPECT_EQ(found[1].kind, FindingKind::LimitFailures);
  EXPECT_EQ(found[1].scope, "limit/rr/retries=0");
  EXPECT_NE(found[1].text.find("37 of 2637 requests failed (502 x37)"), std::string::npos)
      << found[1].text;
  EXPECT_NE(found[1].text.find("without retries"), std::string::npos);
  EXPECT_EQ(found[3].kind, FindingKind::LimitSummary);
  EXPECT_NE(found[3].text.find("routed around the refusals: rr retries=1, least retries=1; passed "
                               "them to clients: rr retries=0 (37 failed)"),
            std::string::npos)
      << found[3].text;
  EXPECT_EQ(kind_name(FindingKind::LimitSummary), "limit-summary");
}

TEST(LabLimit, RetriesVaryForTheBuiltInBalancerAndACommandThatSaysRetries) {
  BalancerSpec spec;
  EXPECT_TRUE(varies_retries(spec));
  spec.kind = BalancerKind::Command;
  spec.command = "haproxy.sh {port} {strategy}";
  EXPECT_FALSE(varies_retries(spec));
  spec.command += " {retries}";
  EXPECT_TRUE(varies_retries(spec));
  spec.kind = BalancerKind::External;
  EXPECT_FALSE(varies_retries(spec));
  Placeholders values;
  values.retries = 0;
  EXPECT_EQ(substitute("run --retries {retries}", values), "run --retries 0");
}

TEST(LabLimit, NoLimitRunNoLimitFinding) {
  std::vector<Finding> out;
  read_limits({make_run(ScenarioKind::Even, "rr", {{"a", 0, 10}, {"b", 0, 10}}, 100)}, out);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace stampede::lab
