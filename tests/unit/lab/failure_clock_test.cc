#include "lab/failure_clock.h"

#include <gtest/gtest.h>

#include <ostream>

namespace stampede::lab {
namespace {

TEST(LabFailureClock, NotesWhenTheAccumulatedErrorsLastGrew) {
  ManualClock clock(1000);
  FailureClock failures(clock);
  std::ostream out(&failures);
  out << "Requests: 100, requests per second: 5000, mean latency: 1.000 ms\n" << std::flush;
  EXPECT_EQ(failures.errors_seen(), 0u);
  EXPECT_EQ(failures.last_growth_ns(), 0);
  clock.set(2000);
  out << "Requests: 200, requests per second: 5000, mean latency: 1.000 ms\n"
      << "Errors: 7, accumulated errors: 7, 3.5% of total requests\n";
  EXPECT_EQ(failures.errors_seen(), 7u);
  EXPECT_EQ(failures.last_growth_ns(), 2000);
  clock.set(3000);  // no new errors: the line repeats the accumulated count
  out << "Requests: 300, requests per second: 5000, mean latency: 1.000 ms\n"
      << "Errors: 0, accumulated errors: 7, 2.3% of total requests\n";
  EXPECT_EQ(failures.last_growth_ns(), 2000);
  EXPECT_EQ(failures.lines(), 3u);
}

TEST(LabFailureClock, LinesMayArriveInPieces) {
  ManualClock clock(5);
  FailureClock failures(clock);
  std::ostream out(&failures);
  const std::string line = "Errors: 3, accumulated errors: 42, 1.0% of total requests\n";
  for (char c : line) {
    EXPECT_EQ(failures.errors_seen(), 0u);
    out.put(c);
  }
  EXPECT_EQ(failures.errors_seen(), 42u);
  EXPECT_EQ(failures.last_growth_ns(), 5);
}

TEST(LabFailureClock, IgnoresOtherText) {
  ManualClock clock(5);
  FailureClock failures(clock);
  std::ostream out(&failures);
  out << "Errors: none\naccumulated errors: 9\nErrors: 1, accumulated errors: x\n";
  EXPECT_EQ(failures.errors_seen(), 0u);
  EXPECT_EQ(failures.lines(), 0u);
}

}  // namespace
}  // namespace stampede::lab
