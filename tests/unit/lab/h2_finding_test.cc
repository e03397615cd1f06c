// The h2 scenario's plan, load settings and finding, from hand-made records: the lab tells a
// request-level balancer from a connection-level one by the shares alone.
#include "lab/h2.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "lab_records.h"

namespace stampede::lab {
namespace {

using testing::make_run;

RunRecord h2_run(const std::vector<testing::Row>& rows, std::uint64_t errors = 0) {
  RunRecord run = make_run(ScenarioKind::H2, "rr", rows, 9000, errors);
  run.health_ms = 0;
  run.h2 = H2Load{h2_connections(rows.size()), kH2Streams};
  return run;
}

std::vector<Finding> h2_findings(const std::vector<Finding>& all) {
  return testing::of_kind(
      all, {FindingKind::H2PerRequest, FindingKind::H2FollowsConnections, FindingKind::H2Uneven});
}

bool says(const Finding& f, const std::string& words) {
  return f.text.find(words) != std::string::npos;
}

TEST(H2Scenario, OpensFewerConnectionsThanInstances) {
  EXPECT_EQ(h2_connections(2), 1u);
  EXPECT_EQ(h2_connections(3), 2u);
  EXPECT_EQ(h2_connections(8), 2u);
  LabConfig lab;
  lab.instances = default_instances(3);
  lab.load.connections = 12;
  lab.load.cores = 4;
  const loadgen::Config c = h2_load_config(lab, "http://127.0.0.1:9/");
  EXPECT_TRUE(c.http2);
  EXPECT_EQ(c.concurrency, 2u);
  EXPECT_EQ(c.streams, kH2Streams);
  EXPECT_EQ(c.cores, 1u);
  EXPECT_EQ(c.url, "http://127.0.0.1:9/");
}

TEST(H2Scenario, PlansOneRunWithTheFirstLoadStrategy) {
  PlanInput in{{ScenarioKind::H2}, {"rr", "least"}, "sticky", {std::chrono::milliseconds(200)}};
  const auto runs = plan_runs(in);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].scenario, ScenarioKind::H2);
  EXPECT_EQ(runs[0].strategy, "rr");
  EXPECT_EQ(runs[0].health, std::chrono::milliseconds(0));
  in.fixed_balancer = true;
  EXPECT_FALSE(plan_runs(in)[0].health.has_value());
  auto parsed = parse_scenarios("h2,even");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(*parsed, (std::vector<ScenarioKind>{ScenarioKind::Even, ScenarioKind::H2}));
  const auto defaults = default_scenarios();
  EXPECT_EQ(std::count(defaults.begin(), defaults.end(), ScenarioKind::H2), 0);
}

TEST(H2Scenario, EvenSharesAreRequestsBalancedOneByOne) {
  const auto found =
      h2_findings(read_runs({h2_run({{"a", 0, 1000}, {"b", 0, 1010}, {"c", 0, 990}})}));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, FindingKind::H2PerRequest);
  EXPECT_EQ(found[0].verdict, Verdict::Note);
  EXPECT_EQ(found[0].scope, "h2/rr");
  EXPECT_TRUE(says(found[0],
                   "requests are balanced one by one (HTTP/2 streams spread over 3 "
                   "instances)"))
      << found[0].text;
}

TEST(H2Scenario, AnIdleInstanceWithTwoConnectionsIsSharesFollowingConnections) {
  const auto all = read_runs({h2_run({{"a", 0, 1500}, {"b", 0, 0}, {"c", 0, 1490}})});
  const auto found = h2_findings(all);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, FindingKind::H2FollowsConnections);
  EXPECT_TRUE(says(found[0],
                   "shares follow connections: this balancer balances connections, "
                   "not requests"))
      << found[0].text;
  EXPECT_TRUE(says(found[0], "reached 2 of 3 instances (b served nothing while up)"))
      << found[0].text;
  // The idle instance is the finding, not a failed check: the lab still exits 0.
  EXPECT_TRUE(all_checks_hold(all));
}

TEST(H2Scenario, OneConnectionOnOneOfTwoInstancesFollowsConnections) {
  const auto found = h2_findings(read_runs({h2_run({{"a", 0, 0}, {"b", 0, 3000}})}));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, FindingKind::H2FollowsConnections);
  EXPECT_TRUE(says(found[0], "1 HTTP/2 connection x 10 streams reached 1 of 2")) << found[0].text;
}

TEST(H2Scenario, UnevenOverMoreInstancesThanConnectionsIsNeither) {
  const auto found =
      h2_findings(read_runs({h2_run({{"a", 0, 2000}, {"b", 0, 500}, {"c", 0, 500}})}));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, FindingKind::H2Uneven);
  EXPECT_TRUE(says(found[0], "uneven share over 3 instances")) << found[0].text;
}

TEST(H2Scenario, NothingServedIsNoFindingAndFailedRequestsFailTheLab) {
  const auto all = read_runs({h2_run({{"a", 0, 0}, {"b", 0, 0}, {"c", 0, 0}}, 40)});
  EXPECT_TRUE(h2_findings(all).empty());
  EXPECT_FALSE(all_checks_hold(all));  // run-errors: every instance was up
}

}  // namespace
}  // namespace stampede::lab
