// Thresholds: which are crossed and how the line reads; their options and .loadtestrc keys.
#include "loadgen/thresholds.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_fixture.h"
#include "loadgen/cli.h"
#include "loadgen/runner.h"

namespace stampede::loadgen {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// 200 requests over 1 s, 10 errors (5%), p99 12.3 ms.
RunResult slow_tail_run() {
  RunResult r;
  r.total_requests = 200;
  r.total_errors = 10;
  r.elapsed_ns = 1'000'000'000;
  r.latency.record_n(1'000'000, 190);
  r.latency.record_n(12'300'000, 10);
  return r;
}

TEST(Thresholds, NoneSetNoneCrossed) {
  EXPECT_THAT(crossed_thresholds(slow_tail_run(), {}), IsEmpty());
  EXPECT_FALSE(Thresholds{}.any());
}

TEST(Thresholds, MaxP99) {
  EXPECT_THAT(crossed_thresholds(slow_tail_run(), {10.0, {}, {}}),
              ElementsAre("p99 12.3 ms > 10 ms"));
  EXPECT_THAT(crossed_thresholds(slow_tail_run(), {12.5, {}, {}}), IsEmpty());
}

TEST(Thresholds, MaxErrorRate) {
  EXPECT_THAT(crossed_thresholds(slow_tail_run(), {{}, 1.0, {}}),
              ElementsAre("error rate 5% > 1%"));
  EXPECT_THAT(crossed_thresholds(slow_tail_run(), {{}, 5.0, {}}), IsEmpty());  // not above
}

TEST(Thresholds, MinRps) {
  EXPECT_THAT(crossed_thresholds(slow_tail_run(), {{}, {}, 250.5}), ElementsAre("rps 200 < 250.5"));
  EXPECT_THAT(crossed_thresholds(slow_tail_run(), {{}, {}, 200.0}), IsEmpty());
}

TEST(Thresholds, SeveralInOrderAndAnEmptyRun) {
  EXPECT_THAT(crossed_thresholds(slow_tail_run(), {1.0, 0.0, 1000.0}),
              ElementsAre("p99 12.3 ms > 1 ms", "error rate 5% > 0%", "rps 200 < 1000"));
  EXPECT_THAT(crossed_thresholds(RunResult{}, {1.0, 0.0, 1.0}), ElementsAre("rps 0 < 1"));
}

class ThresholdOptions : public CliFixture {
 protected:
  ThresholdOptions() : CliFixture("http://127.0.0.1:8080/") {}
};

TEST_F(ThresholdOptions, CommandLine) {
  auto r = parse(
      {"--max-p99", "10", "--max-error-rate", "0.5", "--min-rps", "900", "--html", "out.html"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->config.thresholds.max_p99_ms, 10.0);
  EXPECT_EQ(r->config.thresholds.max_error_rate_pct, 0.5);
  EXPECT_EQ(r->config.thresholds.min_rps, 900.0);
  EXPECT_EQ(r->config.html, "out.html");
  EXPECT_TRUE(r->config.timeline);
}

TEST_F(ThresholdOptions, BadValues) {
  auto r = parse({"--max-p99", "soon"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "--max-p99: expected a number of milliseconds, got 'soon'");
  r = parse({"--max-error-rate", "101"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "--max-error-rate: expected a percentage from 0 to 100, got '101'");
  r = parse({"--min-rps", "-1"});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("--min-rps: expected a number of requests per second"));
  r = parse({"--html", ""});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "--html: empty file name");
}

TEST_F(ThresholdOptions, LoadtestrcKeys) {
  std::ofstream(dir_ + "/.loadtestrc") << R"({"maxP99": 20, "maxErrorRate": "1", "minRps": 5})";
  auto r = parse({"--max-p99", "30"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->config.thresholds.max_p99_ms, 30.0);  // the command line wins
  EXPECT_EQ(r->config.thresholds.max_error_rate_pct, 1.0);
  EXPECT_EQ(r->config.thresholds.min_rps, 5.0);
}

}  // namespace
}  // namespace stampede::loadgen
