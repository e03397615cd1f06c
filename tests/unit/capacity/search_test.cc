// CapacitySearch without sockets: a target that passes every rate up to a known capacity, and
// the edges (the first step fails, the ceiling, a stop).
#include "loadgen/capacity_search.h"

#include <gtest/gtest.h>

#include <vector>

namespace stampede::loadgen {
namespace {

// Runs the search against a target that passes exactly the rates <= capacity; returns the
// rates asked, in order. Bounded: a search that does not end fails the test.
std::vector<double> search_against(CapacitySearch& search, double capacity) {
  std::vector<double> asked;
  while (auto rate = search.next_rate()) {
    asked.push_back(*rate);
    if (asked.size() > 200) {
      ADD_FAILURE() << "the search did not end";
      break;
    }
    search.record(*rate <= capacity);
  }
  return asked;
}

TEST(CapacitySearch, BracketsThenBisectsToTheResolution) {
  for (const double capacity : {1.0, 37.5, 400.0, 399.0, 12'345.0, 1e6}) {
    for (const double start : {1.0, 10.0, 100.0, 399.0}) {
      if (start > capacity) continue;
      SCOPED_TRACE(::testing::Message() << "capacity " << capacity << ", start " << start);
      CapacitySearch search({start, 0.02, 2, 0});
      const std::vector<double> asked = search_against(search, capacity);
      ASSERT_EQ(search.end(), SearchEnd::Found);
      ASSERT_TRUE(search.last_pass() && search.first_fail());
      EXPECT_LE(*search.last_pass(), capacity);
      EXPECT_GT(*search.first_fail(), capacity);
      EXPECT_LE(*search.first_fail() - *search.last_pass(), 0.02 * *search.last_pass());
      EXPECT_EQ(asked.front(), start);
      // Doubling until the first failure, then one bisection step per halving of the bracket.
      EXPECT_LE(asked.size(), 30u);
    }
  }
}

TEST(CapacitySearch, DoublesWhileStepsPassThenTriesTheMiddle) {
  CapacitySearch search({100, 0.1, 2, 0});
  EXPECT_EQ(search_against(search, 450),
            (std::vector<double>{100, 200, 400, 800, 600, 500, 450, 475}));
  EXPECT_EQ(search.last_pass(), 450);
  EXPECT_EQ(search.first_fail(), 475);
}

TEST(CapacitySearch, EveryBisectionStepLiesInsideTheBracket) {
  CapacitySearch search({10, 0.001, 2, 0});
  double low = 0, high = 1e300;
  while (auto rate = search.next_rate()) {
    EXPECT_GT(*rate, low);
    EXPECT_LT(*rate, high);
    const bool passed = *rate <= 777;
    (passed ? low : high) = *rate;
    search.record(passed);
  }
  EXPECT_EQ(search.end(), SearchEnd::Found);
}

TEST(CapacitySearch, FirstStepFailingEndsWithoutACapacity) {
  CapacitySearch search({100, 0.02, 2, 0});
  EXPECT_EQ(search_against(search, 50), std::vector<double>{100});
  EXPECT_EQ(search.end(), SearchEnd::FirstStepFailed);
  EXPECT_FALSE(search.last_pass());
  EXPECT_EQ(search.first_fail(), 100);
  search.record(true);  // ignored once ended
  EXPECT_FALSE(search.last_pass());
}

TEST(CapacitySearch, StopsAtTheCeiling) {
  CapacitySearch search({300, 0.02, 2, 1000});
  EXPECT_EQ(search_against(search, 1e9), (std::vector<double>{300, 600, 1000}));
  EXPECT_EQ(search.end(), SearchEnd::Ceiling);
  EXPECT_EQ(search.last_pass(), 1000);
}

TEST(CapacitySearch, StopKeepsWhatWasLearned) {
  CapacitySearch search({100, 0.02, 2, 0});
  search.record(true);
  search.stop();
  EXPECT_EQ(search.end(), SearchEnd::Stopped);
  EXPECT_FALSE(search.next_rate());
  EXPECT_EQ(search.last_pass(), 100);
}

}  // namespace
}  // namespace stampede::loadgen
