// best_offset: NTP's estimate from the round trip with the shortest trip.
#include <gtest/gtest.h>

#include <vector>

#include "mpi/clock_sync.h"

namespace stampede::mpi {
namespace {

TEST(ClockSync, OffsetIsPeerMinusMidpointOfTheShortestRoundTrip) {
  // Rank 0's clock is 5 000 ns ahead. The first trip waited 900 ns on the way back (estimate off
  // by 450), the second is symmetric and shortest, the third waited on the way out.
  const std::vector<ClockSample> samples = {
      {1'000, 1'000 + 100 + 5'000, 1'000 + 1'100},
      {10'000, 10'000 + 50 + 5'000, 10'000 + 100},
      {20'000, 20'000 + 700 + 5'000, 20'000 + 800},
  };
  const ClockOffset o = best_offset(samples);
  EXPECT_EQ(o.offset_ns, 5'000);
  EXPECT_EQ(o.rtt_ns, 100);
}

TEST(ClockSync, BehindAndTheFirstOfEqualTrips) {
  const std::vector<ClockSample> samples = {
      {1'000'000, 1'000'000 + 20 - 3'000'000, 1'000'000 + 40},
      {2'000'000, 2'000'000 + 30 - 3'000'000, 2'000'000 + 40},
  };
  const ClockOffset o = best_offset(samples);
  EXPECT_EQ(o.offset_ns, -3'000'000);
  EXPECT_EQ(o.rtt_ns, 40);
}

}  // namespace
}  // namespace stampede::mpi
