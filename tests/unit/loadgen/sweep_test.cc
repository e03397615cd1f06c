// The concurrency sweep without sockets: the step list syntax and the knee rule (loadgen/sweep.h),
// and its reports (loadgen/report/sweep.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "loadgen/report/sweep.h"
#include "loadgen/sweep.h"
#include "report/html_report.h"
#include "support/sweep_step.h"

namespace stampede::loadgen {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string sweep_error(const std::string& text) {
  auto steps = parse_sweep_steps(text);
  EXPECT_FALSE(steps.ok()) << text;
  return steps ? std::string() : steps.error().message;
}

TEST(SweepSteps, ListAndRange) {
  EXPECT_THAT(*parse_sweep_steps("1,2,4,8"), ElementsAre(1, 2, 4, 8));
  EXPECT_THAT(*parse_sweep_steps("3"), ElementsAre(3));
  EXPECT_THAT(*parse_sweep_steps("1..256x2"), ElementsAre(1, 2, 4, 8, 16, 32, 64, 128, 256));
  // The factor does not land on the end: the end is the last step.
  EXPECT_THAT(*parse_sweep_steps("1..100x3"), ElementsAre(1, 3, 9, 27, 81, 100));
  EXPECT_THAT(*parse_sweep_steps("10000"), ElementsAre(10000));
}

TEST(SweepSteps, BadListsAreOneLineNamingTheOption) {
  EXPECT_THAT(sweep_error(""), HasSubstr("expected connection counts"));
  EXPECT_THAT(sweep_error("0"), HasSubstr("at least 1 connection"));
  EXPECT_THAT(sweep_error("0..8x2"), HasSubstr("at least 1 connection"));
  EXPECT_THAT(sweep_error("8,4"), HasSubstr("must go up (4 after 8)"));
  EXPECT_THAT(sweep_error("2,2"), HasSubstr("must go up"));
  EXPECT_THAT(sweep_error("256..1x2"), HasSubstr("must go up"));
  EXPECT_THAT(sweep_error("x1"), HasSubstr("not a whole number"));
  EXPECT_THAT(sweep_error("1..8x1"), HasSubstr("factor must be at least 2"));
  EXPECT_THAT(sweep_error("1..8"), HasSubstr("needs a factor"));
  EXPECT_THAT(sweep_error("10001"), HasSubstr("more than 10000"));
  EXPECT_THAT(sweep_error("1,99999999999999999999999"), HasSubstr("more than 10000"));
  EXPECT_THAT(sweep_error("1,,2"), HasSubstr("not a whole number"));
  EXPECT_THAT(sweep_error("1,2,"), HasSubstr("not a whole number"));
  EXPECT_THAT(sweep_error("-1"), HasSubstr("not a whole number"));
  EXPECT_THAT(sweep_error("1e3"), HasSubstr("not a whole number"));
  EXPECT_THAT(sweep_error("1..10000x2,5"), HasSubstr("not a whole number"));
  std::string many = "1";
  for (int i = 2; i <= 65; ++i)
    many += "," + std::to_string(i);
  EXPECT_THAT(sweep_error(many), HasSubstr("65 steps is more than 64"));
  for (const char* bad : {"", "0", "8,4", "x1", "10001"})
    EXPECT_THAT(sweep_error(bad), ::testing::StartsWith("--sweep-connections: "));
}

using stampede::testing::sweep_step;

TEST(SweepKnee, FirstStepWithLittleGainAndMoreLatency) {
  // Throughput doubles up to 4 connections, then 4 -> 8 (twice the connections) gains 3% while
  // p50 doubles.
  const std::vector<SweepStep> steps = {sweep_step(1, 1000, 1.0), sweep_step(2, 2000, 1.0),
                                        sweep_step(4, 4000, 1.0), sweep_step(8, 4120, 1.94),
                                        sweep_step(16, 4130, 3.9)};
  const auto knee = find_knee(steps);
  ASSERT_TRUE(knee.has_value());
  EXPECT_EQ(knee->index, 2u);
  EXPECT_EQ(knee->next, 3u);
  EXPECT_NEAR(knee->gain, 0.03, 1e-9);
  const std::string text = describe_knee(steps);
  EXPECT_THAT(text, HasSubstr("knee at 4 connections"));
  EXPECT_THAT(text, HasSubstr("going to 8 (+100% connections) changed throughput by +3.0% (4000 "
                              "-> 4120 req/s)"));
  EXPECT_THAT(text, HasSubstr("p50 rose 1 -> 1.94 ms"));
  // Little's law with the step past the knee: 8 / 1.94 ms = 4124 req/s.
  EXPECT_THAT(text, HasSubstr("8 / 1.94 ms mean = 4124 req/s"));
}

TEST(SweepKnee, GainAtTheThresholdOrFlatLatencyIsNotAKnee) {
  // Twice the connections: 10.1% more throughput is still buying throughput, 9.9% is not.
  EXPECT_FALSE(find_knee({sweep_step(1, 1000, 1.0), sweep_step(2, 1101, 1.9)}).has_value());
  EXPECT_TRUE(find_knee({sweep_step(1, 1000, 1.0), sweep_step(2, 1099, 1.01)}).has_value());
  // A smaller step asks for less: +10% connections, +1.1% throughput is enough; 0.9% is not.
  EXPECT_FALSE(find_knee({sweep_step(100, 1000, 1.0), sweep_step(110, 1011, 1.1)}).has_value());
  EXPECT_TRUE(find_knee({sweep_step(100, 1000, 1.0), sweep_step(110, 1009, 1.1)}).has_value());
  // Little gain but latency did not grow (the server is not the limit at this step).
  EXPECT_FALSE(find_knee({sweep_step(1, 1000, 1.0), sweep_step(2, 1010, 1.0)}).has_value());
  // Throughput falling while latency grows is past the knee too.
  EXPECT_TRUE(find_knee({sweep_step(1, 1000, 1.0), sweep_step(2, 900, 2.5)}).has_value());
  EXPECT_THAT(describe_knee({sweep_step(1, 1000, 1.0), sweep_step(2, 2000, 1.0)}),
              HasSubstr("no knee up to 2 connections"));
  EXPECT_THAT(describe_knee({sweep_step(1, 1000, 1.0)}), HasSubstr("one step"));
}

TEST(SweepReport, TextJsonAndHtmlCarryStepsAndKnee) {
  SweepResult sweep;
  sweep.url = "http://127.0.0.1:1/<x>";
  sweep.step_seconds = 1;
  sweep.steps = {sweep_step(1, 1000, 1.0), sweep_step(2, 2000, 1.0), sweep_step(4, 2010, 2.0)};
  std::ostringstream text;
  write_sweep_text(sweep, text);
  EXPECT_THAT(text.str(), HasSubstr("knee at 2 connections"));
  EXPECT_THAT(text.str(), HasSubstr("     2010.0"));
  const auto json = sweep_to_json(sweep);
  EXPECT_EQ(json["steps"].size(), 3u);
  EXPECT_EQ(json["steps"][2]["connections"], 4);
  EXPECT_EQ(json["knee"]["connections"], 2);
  EXPECT_EQ(json["knee"]["next_connections"], 4);
  std::ostringstream html;
  report::write_html(sweep_report_data(sweep), html);
  EXPECT_THAT(html.str(), HasSubstr("Throughput against connections"));
  EXPECT_THAT(html.str(), HasSubstr("Latency against connections"));
  EXPECT_THAT(html.str(), HasSubstr("knee at 2 connections"));
  EXPECT_THAT(html.str(), HasSubstr("&lt;x&gt;"));
  EXPECT_EQ(html.str().find("<x>"), std::string::npos);
}

}  // namespace
}  // namespace stampede::loadgen
