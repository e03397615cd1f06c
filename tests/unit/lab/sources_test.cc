#include "lab/sources.h"

#include <gtest/gtest.h>

#include "lab_records.h"

namespace stampede::lab {
namespace {

RunRecord three_rows() {
  RunRecord run;
  for (const char* name : {"a", "b", "c"}) {
    InstanceRow row;
    row.name = name;
    run.instances.push_back(row);
  }
  return run;
}

TEST(LabSources, FillSortsHeaderValuesIntoRowsAndStrays) {
  RunRecord run = three_rows();
  const HeaderCounts headers = {
      {"x-instance", {{"a", 10}, {"b", 11}, {"c", 12}, {"zz", 1}}},
      {"x-backend", {{"a", 10}, {"b", 11}, {"c", 13}}},
  };
  fill_sources(run, headers, {10, std::nullopt, 12});
  EXPECT_EQ(run.instances[0].by_instance, 10u);
  EXPECT_EQ(run.instances[2].by_backend, 13u);
  EXPECT_EQ(run.instances[0].served, 10u);
  EXPECT_FALSE(run.instances[1].served.has_value());
  EXPECT_TRUE(run.backend_header);
  EXPECT_EQ(run.stray_instance_values.at("zz"), 1u);
  EXPECT_TRUE(run.stray_backend_values.empty());
}

TEST(LabSources, NoBackendHeaderMeansNotCompared) {
  RunRecord run = three_rows();
  fill_sources(run, {{"x-instance", {{"a", 5}}}, {"x-backend", {}}}, {5, 0, 0});
  EXPECT_FALSE(run.backend_header);
  const SourceCheck check = check_sources(run);
  EXPECT_FALSE(check.backend_compared);
  EXPECT_TRUE(check.backend_agrees());
  EXPECT_TRUE(check.count_agrees());
}

TEST(LabSources, GapsBeyondTheRunsErrorsAreReported) {
  auto run = testing::make_run(ScenarioKind::Even, "rr", {{"a", 0, 100}, {"b", 0, 100}}, 1, 2);
  run.instances[0].by_backend = 102;  // within the 2 failed requests
  run.instances[1].served = 103;      // beyond them
  const SourceCheck check = check_sources(run);
  EXPECT_EQ(check.tolerance, 2u);
  EXPECT_TRUE(check.backend_gaps.empty());
  ASSERT_EQ(check.count_gaps.size(), 1u);
  EXPECT_EQ(check.count_gaps[0].instance, "b");
  EXPECT_EQ(check.count_gaps[0].value, 103u);
  EXPECT_EQ(check.count_gaps[0].by_instance, 100u);
}

TEST(LabSources, SharesUseCountUnlessAnInstanceWasNotRead) {
  auto run = testing::make_run(ScenarioKind::Even, "rr", {{"a", 0, 300}, {"b", 0, 100}}, 1);
  run.instances[0].by_instance = 100;
  EXPECT_EQ(share_source(run), Source::Count);
  EXPECT_DOUBLE_EQ(shares(run, Source::Count)[0], 0.75);
  EXPECT_DOUBLE_EQ(shares(run, Source::Instance)[0], 0.5);
  run.instances[1].served.reset();
  EXPECT_EQ(share_source(run), Source::Instance);
  RunRecord empty = three_rows();
  EXPECT_EQ(shares(empty, Source::Instance), (std::vector<double>{0, 0, 0}));
}

}  // namespace
}  // namespace stampede::lab
