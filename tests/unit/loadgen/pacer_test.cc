// The open-loop schedule and its split across workers: pure arithmetic, no sockets, no clock.
#include "loadgen/pacer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace stampede::loadgen {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

TEST(RateSchedule, RequestKIsDueAtKOverR) {
  RateSchedule s(1000, 0);
  EXPECT_EQ(s.offset_of(0), 0);
  EXPECT_EQ(s.offset_of(1), 1'000'000);
  EXPECT_EQ(s.offset_of(999), 999'000'000);
  EXPECT_EQ(s.offset_of(3'600'000), 3600 * kSecond);  // an hour in, still exact
}

TEST(RateSchedule, FractionalRates) {
  RateSchedule half(0.5, 0);
  EXPECT_EQ(half.offset_of(1), 2 * kSecond);
  EXPECT_EQ(half.count_before(4 * kSecond), 2u);      // at 0 s and 2 s
  EXPECT_EQ(half.count_before(4 * kSecond + 1), 3u);  // and 4 s
  RateSchedule odd(2.5, 0);
  EXPECT_EQ(odd.offset_of(1), 400'000'000);
  EXPECT_EQ(odd.count_before(2 * kSecond), 5u);
}

TEST(RateSchedule, CountBeforeMatchesOffsets) {
  for (double rps : {1.0, 3.0, 7.5, 999.0, 50'000.0}) {
    for (std::int64_t ramp : {std::int64_t{0}, kSecond / 3, 2 * kSecond}) {
      RateSchedule s(rps, ramp);
      for (std::int64_t t : {std::int64_t{0}, std::int64_t{1}, kSecond / 7, kSecond, 5 * kSecond}) {
        const std::uint64_t n = s.count_before(t);
        if (n > 0) {
          EXPECT_LT(s.offset_of(n - 1), t) << rps << " " << ramp << " " << t;
        }
        EXPECT_GE(s.offset_of(n), t) << rps << " " << ramp << " " << t;
      }
    }
  }
}

TEST(RateSchedule, RampGrowsLinearlyThenHolds) {
  // 1000 rps after a 2 s ramp: 1000 requests in the ramp (R T / 2), a quarter of them in its first
  // half (t^2), then 1000 per second.
  RateSchedule s(1000, 2 * kSecond);
  EXPECT_EQ(s.count_before(kSecond), 250u);
  EXPECT_EQ(s.count_before(2 * kSecond), 1000u);
  EXPECT_EQ(s.count_before(3 * kSecond), 2000u);
  // The gaps shrink during the ramp and are 1 ms after it.
  EXPECT_GT(s.offset_of(11) - s.offset_of(10), s.offset_of(501) - s.offset_of(500));
  EXPECT_EQ(s.offset_of(1501) - s.offset_of(1500), 1'000'000);
  for (std::uint64_t k = 1; k < 3000; ++k)
    ASSERT_GE(s.offset_of(k), s.offset_of(k - 1));
}

TEST(OpenLoopPacer, WorkersTogetherFollowTheSchedule) {
  const RateSchedule schedule(300, 0);
  const std::int64_t start = 5 * kSecond;
  std::vector<std::int64_t> times;
  for (std::uint32_t w = 0; w < 3; ++w) {
    OpenLoopPacer pacer(schedule, w, 3);
    pacer.begin(start);
    for (int i = 0; i < 100; ++i)
      times.push_back(pacer.next_send_time(0));
  }
  std::sort(times.begin(), times.end());
  for (std::uint64_t k = 0; k < times.size(); ++k)
    ASSERT_EQ(times[k], start + schedule.offset_of(k)) << k;
}

TEST(OpenLoopPacer, TheScheduleDoesNotWaitForTheCaller) {
  // A connection free late gets a time in the past: the request goes out at once and its
  // latency counts from that time.
  OpenLoopPacer pacer(RateSchedule(10, 0), 0, 1);
  pacer.begin(kSecond);
  EXPECT_EQ(pacer.next_send_time(10 * kSecond), kSecond);
  EXPECT_EQ(pacer.next_send_time(10 * kSecond), kSecond + kSecond / 10);
}

TEST(WakeTime, RoundsUpToTheSharedGrid) {
  EXPECT_EQ(wake_time(0), 0);
  EXPECT_EQ(wake_time(1), kWakeGridNs);
  EXPECT_EQ(wake_time(kWakeGridNs), kWakeGridNs);
  EXPECT_EQ(wake_time(5 * kSecond + 1), 5 * kSecond + kWakeGridNs);
  // Requests due within one step share a wake-up.
  EXPECT_EQ(wake_time(kSecond + 10'000), wake_time(kSecond + 90'000));
}

TEST(ClosedLoopPacer, SendsNow) {
  ClosedLoopPacer pacer;
  pacer.begin(1);
  EXPECT_EQ(pacer.next_send_time(42), 42);
}

}  // namespace
}  // namespace stampede::loadgen
