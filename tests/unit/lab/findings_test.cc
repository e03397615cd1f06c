// The findings, row by row of the guide's table, from hand-made numbers (most of them the
// guide's own).
#include "lab/findings.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "lab_records.h"

namespace stampede::lab {
namespace {

using testing::make_run;
using testing::of_kind;
using testing::outage_run;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The one finding of `kind` in `findings`, checked to say each of `parts` (its text shown when it
// does not); nullopt, with a failure added, when there is none or more than one.
std::optional<Finding> one_of_kind(const std::vector<Finding>& findings, FindingKind kind,
                                   std::initializer_list<std::string> parts = {}) {
  const auto found = of_kind(findings, kind);
  EXPECT_EQ(found.size(), 1u) << kind_name(kind);
  if (found.size() != 1) return std::nullopt;
  for (const std::string& part : parts)
    EXPECT_TRUE(contains(found[0].text, part)) << found[0].text;
  return found[0];
}

// The guide's three rr/least runs: even pool, then c 50 ms slow.
std::vector<RunRecord> guide_runs() {
  return {
      make_run(ScenarioKind::Even, "rr", {{"a", 0, 12559}, {"b", 0, 12560}, {"c", 0, 12559}},
               7533.6),
      make_run(ScenarioKind::Even, "least", {{"a", 0, 12000}, {"b", 0, 12100}, {"c", 0, 11900}},
               7600),
      make_run(ScenarioKind::Slow, "rr", {{"a", 0, 971}, {"b", 0, 971}, {"c", 50, 972}}, 580.4),
      make_run(ScenarioKind::Slow, "least", {{"a", 0, 27894}, {"b", 0, 23919}, {"c", 50, 247}},
               10411.6),
  };
}

TEST(LabFindings, EvenShareOnIdenticalInstancesIsTheRightAnswer) {
  const auto findings = read_runs(guide_runs());
  const auto even = of_kind(findings, FindingKind::EvenShare);
  ASSERT_EQ(even.size(), 2u);
  EXPECT_EQ(even[0].scope, "even/rr");
  EXPECT_EQ(even[0].verdict, Verdict::Note);
  EXPECT_TRUE(contains(even[0].text, "1 request apart across 37678")) << even[0].text;
  EXPECT_TRUE(contains(even[0].text, "identical")) << even[0].text;
  EXPECT_TRUE(all_checks_hold(findings));
}

TEST(LabFindings, EvenShareLowThroughputPointsAtLatencyAndLeastConnections) {
  const auto findings = read_runs(guide_runs());
  // "c 50.2 ms": the per-instance latency.
  const auto low = one_of_kind(findings, FindingKind::EvenShareLowThroughput,
                               {"c (50 ms) still took 33.4%", "580 req/s against 7534 req/s",
                                "x0.08", "c 50.2 ms", "least gave c 0.5% at 10412 req/s"});
  ASSERT_TRUE(low);
  EXPECT_EQ(low->scope, "slow/rr");
}

TEST(LabFindings, UnevenShareHighThroughputIsRoutingAroundTheSlowMember) {
  const auto findings = read_runs(guide_runs());
  const auto around = one_of_kind(findings, FindingKind::RoutesAroundSlow,
                                  {"c (50 ms) took 0.5% against a fair 33.3%", "routing around"});
  ASSERT_TRUE(around);
  EXPECT_EQ(around->scope, "slow/least");
  // The slow member near zero is the strategy working, not an instance out of the pool.
  EXPECT_TRUE(of_kind(findings, FindingKind::InstanceAtZero).empty());
}

TEST(LabFindings, SlowMemberAtFullTurnWithThroughputHeldIsAbsorbed) {
  std::vector<RunRecord> runs = {
      make_run(ScenarioKind::Even, "rr", {{"a", 0, 1000}, {"b", 0, 1000}, {"c", 0, 1000}}, 100),
      make_run(ScenarioKind::Slow, "rr", {{"a", 0, 1000}, {"b", 0, 1000}, {"c", 5, 1000}}, 95)};
  const auto findings = read_runs(runs);
  EXPECT_EQ(of_kind(findings, FindingKind::SlowAbsorbed).size(), 1u);
  EXPECT_TRUE(of_kind(findings, FindingKind::EvenShareLowThroughput).empty());
}

TEST(LabFindings, HeadersThatDisagreeFailAndDistrustTheBalancer) {
  auto run = make_run(ScenarioKind::Even, "rr", {{"a", 0, 100}, {"b", 0, 100}, {"c", 0, 100}}, 50);
  run.instances[0].by_backend = 150;  // the balancer claims 50 more for a than a answered
  run.instances[1].by_backend = 50;
  const auto findings = read_runs({run});
  const auto bad =
      one_of_kind(findings, FindingKind::HeadersDisagree,
                  {"a 150 by x-backend, 100 by x-instance", "do not trust its counters"});
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->verdict, Verdict::Fail);
  EXPECT_FALSE(all_checks_hold(findings));
  EXPECT_TRUE(of_kind(findings, FindingKind::SourcesAgree).empty());
}

TEST(LabFindings, HeaderGapsWithinTheFailedRequestsAreNotADisagreement) {
  // 502s made by the balancer carry x-backend but no x-instance.
  auto run =
      make_run(ScenarioKind::Outage, "rr", {{"a", 0, 100}, {"b", 0, 100}, {"c", 0, 0}}, 50, 30);
  run.instances[2].by_backend = 30;
  run.instances[2].served.reset();
  EXPECT_TRUE(of_kind(read_runs({run}), FindingKind::HeadersDisagree).empty());
  run.instances[2].by_backend = 31;
  EXPECT_EQ(of_kind(read_runs({run}), FindingKind::HeadersDisagree).size(), 1u);
}

TEST(LabFindings, BackendNamesThatAreNoInstanceFail) {
  auto run = make_run(ScenarioKind::Even, "rr", {{"a", 0, 100}, {"b", 0, 100}}, 50);
  for (auto& row : run.instances)
    row.by_backend = 0;
  run.stray_backend_values = {{"srv1", 100}, {"srv2", 100}};
  EXPECT_TRUE(one_of_kind(read_runs({run}), FindingKind::HeadersDisagree, {"'srv1' (100)"}));
}

TEST(LabFindings, CountThatDisagreesWithResponsesFails) {
  auto run = make_run(ScenarioKind::Even, "rr", {{"a", 0, 100}, {"b", 0, 100}}, 50);
  run.instances[1].served = 130;  // 30 requests nobody saw answered: a health check on /
  const auto findings = read_runs({run});
  const auto bad =
      one_of_kind(findings, FindingKind::CountDisagrees, {"b 130 by /count, 100 by x-instance"});
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->verdict, Verdict::Fail);
}

TEST(LabFindings, AllSourcesAgreeOrNoBackendHeader) {
  auto runs = guide_runs();
  auto findings = read_runs(runs);
  ASSERT_TRUE(one_of_kind(findings, FindingKind::SourcesAgree, {"all 4 runs"}));
  runs[0].backend_header = false;
  findings = read_runs(runs);
  EXPECT_TRUE(of_kind(findings, FindingKind::SourcesAgree).empty());
  ASSERT_TRUE(one_of_kind(findings, FindingKind::NoBackendHeader, {"1 of 4 runs"}));
  EXPECT_TRUE(all_checks_hold(findings));
}

TEST(LabFindings, InstanceAtZeroWithTheOthersEvenFailsAndQuotesTheBalancer) {
  auto run = make_run(ScenarioKind::Even, "rr", {{"a", 0, 500}, {"b", 0, 0}, {"c", 0, 500}}, 50);
  run.instances[1].balancer_up = false;
  const auto findings = read_runs({run});
  const auto zero = one_of_kind(findings, FindingKind::InstanceAtZero,
                                {"b served 0 of 1000", "a 50.0%, b 0.0%, c 50.0%", "b is down",
                                 "before restarting anything"});
  ASSERT_TRUE(zero);
  EXPECT_EQ(zero->verdict, Verdict::Fail);
}

TEST(LabFindings, ErrorsWhileEveryInstanceWasUpFail) {
  auto run =
      make_run(ScenarioKind::Even, "rr", {{"a", 0, 100}, {"b", 0, 100}, {"c", 0, 100}}, 50, 12);
  EXPECT_TRUE(one_of_kind(read_runs({run}), FindingKind::RunErrors,
                          {"12 of 312 requests failed (502 x12)"}));
}

TEST(LabFindings, OutageErrorShareAboveTheDeadMembersShare) {
  // The guide: 10204 of 34349 failed with checks off, c dead for 4 s of 6 (owed 22.2%).
  const auto findings =
      read_runs({outage_run(0, 34349, 10204, 4.0), outage_run(1000, 55999, 1411, 2.9),
                 outage_run(200, 60808, 30, 0.4)});
  const auto above = one_of_kind(findings, FindingKind::ErrorShareAboveTraffic,
                                 {"29.7% of requests failed, more than the 22.2% c was owed"});
  ASSERT_TRUE(above);
  EXPECT_EQ(above->scope, "outage/rr/health=off");
  ASSERT_TRUE(one_of_kind(
      findings, FindingKind::OutageDetector,
      {"health off: 10204 of 34349 failed (29.7%)", "health 200 ms: 30 of 60808 failed (0.05%)",
       "describes the detector, not the fault"}));
  // Checks off: failures to the end of the run. 200 ms: they stopped.
  const auto undetected = one_of_kind(findings, FindingKind::OutageUndetected);
  ASSERT_TRUE(undetected);
  EXPECT_EQ(undetected->scope, "outage/rr/health=off");
  EXPECT_TRUE(all_checks_hold(findings));  // an outage's failures are measured, not a check
}

TEST(LabFindings, OutageWithoutFailuresSaysTheIntervalDidNotMatter) {
  const auto findings = read_runs({outage_run(0, 30000, 0, 0), outage_run(200, 30000, 0, 0)});
  const auto detector = one_of_kind(findings, FindingKind::OutageDetector, {"No request failed"});
  ASSERT_TRUE(detector);
  EXPECT_FALSE(contains(detector->text, "describes the detector"));
  EXPECT_TRUE(of_kind(findings, FindingKind::ErrorShareAboveTraffic).empty());
}

RunRecord sticky_run(
    const std::vector<std::pair<std::string, std::map<std::string, std::uint64_t>>>& sessions) {
  std::map<std::string, std::uint64_t> per_instance{{"a", 0}, {"b", 0}, {"c", 0}};
  for (const auto& [name, served] : sessions)
    for (const auto& [inst, n] : served)
      per_instance[inst] += n;
  auto run = make_run(
      ScenarioKind::Sticky, "sticky",
      {{"a", 0, per_instance["a"]}, {"b", 0, per_instance["b"]}, {"c", 0, per_instance["c"]}}, 500);
  for (const auto& [name, served] : sessions) {
    SessionRow row;
    row.name = name;
    row.by_instance = served;
    row.by_backend = served;
    for (const auto& [inst, n] : served)
      row.requests += n;
    run.sessions.push_back(row);
  }
  return run;
}

TEST(LabFindings, StickySkewIsArithmeticWhenItIsTheBestSplit) {
  // The guide: s1=a s2=b s4=a s3=c, 50 / 25 / 25.
  const auto run = sticky_run(
      {{"s1", {{"a", 300}}}, {"s2", {{"b", 300}}}, {"s3", {{"c", 300}}}, {"s4", {{"a", 300}}}});
  const auto findings = read_runs({run});
  ASSERT_TRUE(one_of_kind(findings, FindingKind::SessionsKept, {"s1=a s2=b s3=c s4=a"}));
  ASSERT_TRUE(one_of_kind(findings, FindingKind::StickyArithmetic,
                          {"2/1/1 sessions (50.0% / 25.0% / 25.0%)", "arithmetic, not a bug"}));
  // b and c at a quarter, none at zero: no instance-at-zero either way for sticky.
  EXPECT_TRUE(all_checks_hold(findings));
}

TEST(LabFindings, StickySkewBeyondTheBestSplitIsChance) {
  const auto run = sticky_run(
      {{"s1", {{"b", 300}}}, {"s2", {{"c", 300}}}, {"s3", {{"b", 300}}}, {"s4", {{"b", 300}}}});
  const auto findings = read_runs({run});
  ASSERT_TRUE(one_of_kind(findings, FindingKind::StickyChance,
                          {"sessions per instance 3/1/0", "is 2/1/1"}));
  EXPECT_TRUE(of_kind(findings, FindingKind::InstanceAtZero).empty());  // a at 0 is chance
  EXPECT_TRUE(all_checks_hold(findings));
}

TEST(LabFindings, ASessionServedByTwoInstancesFails) {
  const auto run = sticky_run({{"s1", {{"a", 300}}},
                               {"s2", {{"a", 150}, {"b", 150}}},
                               {"s3", {{"c", 300}}},
                               {"s4", {{"a", 300}}}});
  const auto findings = read_runs({run});
  const auto split = one_of_kind(findings, FindingKind::SessionSplit,
                                 {"s2 served by more than one instance", "s2=a+b"});
  ASSERT_TRUE(split);
  EXPECT_EQ(split->verdict, Verdict::Fail);
  EXPECT_FALSE(all_checks_hold(findings));
}

TEST(LabFindings, BestSplit) {
  EXPECT_EQ(best_split(4, 3), (std::vector<std::uint32_t>{2, 1, 1}));
  EXPECT_EQ(best_split(2, 3), (std::vector<std::uint32_t>{1, 1, 0}));
  EXPECT_EQ(best_split(6, 3), (std::vector<std::uint32_t>{2, 2, 2}));
  EXPECT_EQ(best_split(7, 2), (std::vector<std::uint32_t>{4, 3}));
}

TEST(LabFindings, SessionPlacementUsesBackendWhenInstancesSetNoHeader) {
  auto run = sticky_run({{"s1", {{"a", 10}}}, {"s2", {{"b", 10}}}});
  run.sessions[0].by_instance.clear();
  const SessionPlacement placed = place_sessions(run);
  EXPECT_EQ(placed.placement, "s1=a s2=b");
  EXPECT_TRUE(placed.split.empty());
  EXPECT_EQ(placed.per_instance, (std::vector<std::uint32_t>{1, 1, 0}));
}

TEST(LabFindings, KindNamesAreDistinct) {
  std::set<std::string_view> names;
  for (int k = 0; k <= static_cast<int>(FindingKind::StickyChance); ++k)
    names.insert(kind_name(static_cast<FindingKind>(k)));
  EXPECT_EQ(names.size(), static_cast<std::size_t>(FindingKind::StickyChance) + 1);
  EXPECT_EQ(names.count("?"), 0u);
}

}  // namespace
}  // namespace stampede::lab
