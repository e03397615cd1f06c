// InFlight: a pipelined connection's requests, oldest first, in a ring of fixed capacity.
#include "loadgen/in_flight.h"

#include <gtest/gtest.h>

namespace stampede::loadgen {
namespace {

FlightEntry entry(std::uint64_t index) {
  FlightEntry e;
  e.index = index;
  e.intended_ns = static_cast<std::int64_t>(index) * 10;
  return e;
}

TEST(InFlight, OldestFirstAcrossTheRingsEnd) {
  InFlight flight(3);
  EXPECT_TRUE(flight.empty());
  std::uint64_t next = 1, expected = 1;
  for (int round = 0; round < 5; ++round) {  // wraps around several times
    while (!flight.full())
      flight.push(entry(next++));
    EXPECT_EQ(flight.size(), 3u);
    EXPECT_EQ(flight.at(2).index, expected + 2);
    EXPECT_EQ(flight.front().index, expected);
    EXPECT_EQ(flight.pop().index, expected++);
    EXPECT_EQ(flight.pop().intended_ns, static_cast<std::int64_t>(expected++) * 10);
  }
  flight.front().begin_ns = 7;  // front() is the stored entry
  EXPECT_EQ(flight.pop().begin_ns, 7);
  EXPECT_TRUE(flight.empty());
  flight.push(entry(99));
  flight.clear();
  EXPECT_TRUE(flight.empty());
  EXPECT_EQ(flight.capacity(), 3u);
}

}  // namespace
}  // namespace stampede::loadgen
