// judge_step over made-up results: latency, errors, a rate not held by the server, and the
// generator's own limits (local failures, lateness with connections free), which must never be
// taken for the server's capacity.
#include <gtest/gtest.h>

#include "loadgen/capacity.h"

namespace stampede::loadgen {
namespace {

constexpr std::int64_t kMsNs = 1'000'000;

CapacityParams judge_limits() {
  CapacityParams p;
  p.max_p99_ms = 50;
  p.max_error_rate_pct = 1;
  return p;
}

// An open-loop step at 100 req/s for 2 s: `sent` requests, all answered in `latency_ms`.
RunResult paced_step(std::uint64_t sent, std::int64_t latency_ms) {
  RunResult r;
  r.rate = RateResult{};
  r.rate->target_rps = 100;
  r.rate->scheduled = 200;
  r.rate->sent = sent;
  r.rate->send_window_ns = 2'000'000'000;
  r.total_requests = sent;
  r.elapsed_ns = r.rate->send_window_ns;
  r.latency.record_n(latency_ms * kMsNs, sent);
  return r;
}

TEST(JudgeStep, PassesAHeldRateWithinTheLimits) {
  const CapacityStep s = judge_step(paced_step(200, 10), 100, judge_limits());
  EXPECT_EQ(s.verdict, StepVerdict::Pass);
  EXPECT_TRUE(s.reason.empty());
  EXPECT_DOUBLE_EQ(s.held_rps, 100);
  EXPECT_EQ(s.requests, 200u);
  EXPECT_NEAR(s.p99_ms, 10, 0.1);
}

TEST(JudgeStep, FailsOnTheCorrectedP99) {
  const CapacityStep s = judge_step(paced_step(200, 60), 100, judge_limits());
  EXPECT_EQ(s.verdict, StepVerdict::LatencyOver);
  EXPECT_NE(s.reason.find("p99"), std::string::npos) << s.reason;
}

TEST(JudgeStep, FailsOnErrorsAboveTheLimit) {
  RunResult r = paced_step(200, 10);
  r.total_errors = 3;  // 1.5%
  EXPECT_EQ(judge_step(r, 100, judge_limits()).verdict, StepVerdict::ErrorsOver);
  r.total_errors = 2;  // 1%: within
  EXPECT_EQ(judge_step(r, 100, judge_limits()).verdict, StepVerdict::Pass);
}

TEST(JudgeStep, ARateNotHeldFailsWhateverItsLatency) {
  RunResult r = paced_step(190, 10);  // 95 req/s of 100
  r.rate->late = 40;
  r.rate->late_waiting = 40;  // every late request waited for a busy connection: the server
  const CapacityStep s = judge_step(r, 100, judge_limits());
  EXPECT_EQ(s.verdict, StepVerdict::RateNotHeld);
  EXPECT_NE(s.reason.find("95.0 req/s held of 100.0"), std::string::npos) << s.reason;
  // 97% is enough.
  EXPECT_EQ(judge_step(paced_step(194, 10), 100, judge_limits()).verdict, StepVerdict::Pass);
}

TEST(JudgeStep, TheGeneratorFallingBehindIsNotTheServer) {
  RunResult r = paced_step(150, 10);
  r.rate->late = 100;
  r.rate->late_waiting = 10;  // 90 were late with a connection free
  const CapacityStep s = judge_step(r, 100, judge_limits());
  EXPECT_EQ(s.verdict, StepVerdict::GeneratorLimit);
  EXPECT_NE(s.reason.find("generator"), std::string::npos) << s.reason;
}

TEST(JudgeStep, LatencyFromSendingLateWithConnectionsFreeIsTheGenerators) {
  RunResult r = paced_step(200, 60);              // corrected p99 60 ms, over the 50 ms limit
  r.rate->uncorrected.record_n(10 * kMsNs, 200);  // the server answered in 10 ms once sent
  r.rate->late = 100;
  r.rate->late_waiting = 0;
  const CapacityStep s = judge_step(r, 100, judge_limits());
  EXPECT_EQ(s.verdict, StepVerdict::GeneratorLimit);
  EXPECT_NE(s.reason.find("10.0 ms from the actual ones"), std::string::npos) << s.reason;
  // The same lateness while every connection was busy: the server's.
  r.rate->late_waiting = 100;
  EXPECT_EQ(judge_step(r, 100, judge_limits()).verdict, StepVerdict::LatencyOver);
  // The server itself over the limit: its latency, whatever the generator's lag.
  r.rate->late_waiting = 0;
  r.rate->uncorrected.record_n(70 * kMsNs, 200);
  EXPECT_EQ(judge_step(r, 100, judge_limits()).verdict, StepVerdict::LatencyOver);
}

TEST(JudgeStep, LocalFailuresAreTheGenerators) {
  RunResult r = paced_step(200, 10);
  r.total_errors = 50;
  r.local_errors["EMFILE"] = 50;
  const CapacityStep s = judge_step(r, 100, judge_limits());
  EXPECT_EQ(s.verdict, StepVerdict::GeneratorLimit);
  EXPECT_NE(s.reason.find("EMFILE"), std::string::npos) << s.reason;
}

TEST(StepDuration, AtLeastTwoSecondsAndAThousandRequests) {
  CapacityParams p = judge_limits();
  EXPECT_EQ(step_duration(p, 10'000), std::chrono::seconds(2));
  EXPECT_EQ(step_duration(p, 100), std::chrono::seconds(10));
  p.step_duration = std::chrono::milliseconds(500);
  EXPECT_EQ(step_duration(p, 100), std::chrono::milliseconds(500));
}

}  // namespace
}  // namespace stampede::loadgen
