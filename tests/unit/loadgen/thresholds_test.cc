// Thresholds: which are crossed and how the line reads (their options and .loadtestrc keys:
// tests/unit/cli/threshold_options_test.cc).
#include "loadgen/report/thresholds.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "loadgen/runner.h"

namespace stampede::loadgen {
namespace {

using ::testing::ElementsAre;
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

}  // namespace
}  // namespace stampede::loadgen
