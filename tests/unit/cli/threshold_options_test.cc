// The thresholds' options (--max-p99, --max-error-rate, --min-rps) and their .loadtestrc keys.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli/generator.h"
#include "generator_fixture.h"
#include "support/process.h"

namespace stampede::loadgen {
namespace {

using ::testing::HasSubstr;

using ThresholdOptions = OptionsBeforeUrl;

TEST_F(ThresholdOptions, CommandLine) {
  auto r = parse(
      {"--max-p99", "10", "--max-error-rate", "0.5", "--min-rps", "900", "--html", "out.html"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->settings.thresholds.max_p99_ms, 10.0);
  EXPECT_EQ(r->settings.thresholds.max_error_rate_pct, 0.5);
  EXPECT_EQ(r->settings.thresholds.min_rps, 900.0);
  EXPECT_EQ(r->settings.html, "out.html");
  EXPECT_TRUE(r->plan.config.timeline);
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
  write_rc(R"({"maxP99": 20, "maxErrorRate": "1", "minRps": 5})");
  auto r = parse({"--max-p99", "30"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->settings.thresholds.max_p99_ms, 30.0);  // the command line wins
  EXPECT_EQ(r->settings.thresholds.max_error_rate_pct, 1.0);
  EXPECT_EQ(r->settings.thresholds.min_rps, 5.0);
}

}  // namespace
}  // namespace stampede::loadgen
