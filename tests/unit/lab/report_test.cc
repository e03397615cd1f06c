#include "lab/report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "lab/tables.h"
#include "lab_records.h"
#include "support/text_checks.h"

namespace stampede::lab {
namespace {

LabResult sample(bool with_split) {
  LabResult result;
  result.config.instances = default_instances(3);
  apply_defaults(result.config);
  result.balancer = "stampede balance (built-in, started for each run)";
  result.addresses = {"127.0.0.1:1001", "127.0.0.1:1002", "127.0.0.1:1003"};
  result.runs.push_back(testing::make_run(
      ScenarioKind::Even, "rr", {{"a", 0, 12559}, {"b", 0, 12560}, {"c", 0, 12559}}, 7533.6));
  result.runs.push_back(testing::make_run(ScenarioKind::Slow, "rr",
                                          {{"a", 0, 971}, {"b", 0, 971}, {"c", 50, 972}}, 580.4));
  result.runs.push_back(testing::outage_run(200, 60808, 30, 0.4));
  RunRecord sticky = testing::make_run(ScenarioKind::Sticky, "sticky",
                                       {{"a", 0, 600}, {"b", 0, 300}, {"c", 0, 300}}, 400);
  sticky.sessions = {{"s1", 300, 0, {{"a", 300}}, {{"a", 300}}},
                     {"s2", 300, 0, {{"b", 300}}, {{"b", 300}}},
                     {"s3", 300, 0, {{"c", 300}}, {{"c", 300}}},
                     {"s4", 300, 0, {{"a", 300}}, {{"a", 300}}}};
  if (with_split) sticky.sessions[3].by_instance = {{"a", 150}, {"b", 150}};
  result.runs.push_back(sticky);
  result.findings = read_runs(result.runs);
  result.wall_seconds = 12.5;
  return result;
}

TEST(LabReport, TextHasATablePerScenarioTheFindingsAndTheVerdict) {
  std::ostringstream out;
  write_text(sample(false), out);
  const std::string text = out.str();
  EXPECT_TRUE(stampede::testing::contains_all(
      text,
      {"even — the pool as given", "slow — c delayed 50 ms", "slow against even, per strategy",
       "outage — failures per health interval", "sticky — per session", "c (killed)", "12560",
       "note  slow/rr: even share, low throughput", "result: every check holds (4 runs, 12.5 s)"}));
}

TEST(LabReport, TextPutsFailuresFirst) {
  std::ostringstream out;
  write_text(sample(true), out);
  const std::string text = out.str();
  const auto fail = text.find("FAIL  sticky/sticky: s4 served by more than one instance");
  ASSERT_NE(fail, std::string::npos) << text;
  EXPECT_LT(fail, text.find("note  "));
  EXPECT_NE(text.find("result: 1 check failed"), std::string::npos);
}

TEST(LabReport, JsonCarriesEveryRunAndFinding) {
  const LabResult result = sample(true);
  std::ostringstream out;
  write_json(result, out);
  const auto doc = nlohmann::json::parse(out.str());
  EXPECT_FALSE(doc["ok"].get<bool>());
  ASSERT_EQ(doc["runs"].size(), 4u);
  const auto& even = doc["runs"][0];
  EXPECT_EQ(even["label"], "even/rr");
  EXPECT_EQ(even["instances"][1]["count"], 12560);
  EXPECT_EQ(even["instances"][1]["x_backend"], 12560);
  EXPECT_NEAR(even["instances"][1]["share"].get<double>(), 12560.0 / 37678, 1e-9);
  const auto& outage = doc["runs"][2];
  EXPECT_EQ(outage["health_ms"], 200);
  EXPECT_TRUE(outage["instances"][2]["count"].is_null());
  EXPECT_TRUE(outage["instances"][2]["killed"].get<bool>());
  EXPECT_DOUBLE_EQ(outage["outage"]["kill_at_s"].get<double>(), 2.0);
  EXPECT_EQ(doc["runs"][3]["sessions"].size(), 4u);
  EXPECT_EQ(doc["instances"][2]["address"], "127.0.0.1:1003");
  EXPECT_EQ(doc["findings"].size(), result.findings.size());
  bool split = false;
  for (const auto& f : doc["findings"])
    split = split || (f["kind"] == "session-split" && f["verdict"] == "fail");
  EXPECT_TRUE(split);
}

TEST(LabReport, HtmlDataHasTheTablesFindingsAndLatency) {
  LabResult result = sample(false);
  result.runs[0].latency = {{0, 0.1}, {50, 1.0}, {100, 3.0}};
  const report::ReportData data = to_report_data(result);
  EXPECT_EQ(data.title, "stampede lab");
  EXPECT_EQ(data.tables.size(), scenario_tables(result).size());
  EXPECT_EQ(data.findings.size(), result.findings.size());
  ASSERT_EQ(data.latency.size(), 1u);
  EXPECT_EQ(data.latency[0].name, "even/rr");
  for (const report::Table& t : data.tables)
    for (const auto& row : t.rows)
      EXPECT_EQ(row.size(), t.header.size()) << t.title;
}

}  // namespace
}  // namespace stampede::lab
