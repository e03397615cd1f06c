#include "core/units.h"

#include <gtest/gtest.h>

#include "core/random.h"

namespace stampede {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using std::chrono::seconds;

TEST(Units, CountsWithSuffixes) {
  EXPECT_EQ(*parse_count("0"), 0u);
  EXPECT_EQ(*parse_count("10"), 10u);
  EXPECT_EQ(*parse_count("10k"), 10000u);
  EXPECT_EQ(*parse_count("1.5k"), 1500u);
  EXPECT_EQ(*parse_count("2M"), 2000000u);
}

TEST(Units, CountsRejectBadInput) {
  for (const char* bad : {"", "-1", "abc", "10x", "1.5", "k", "1e3", "nan", "99999999999g"}) {
    EXPECT_FALSE(parse_count(bad).ok()) << bad;
  }
  EXPECT_NE(parse_count("-5").error().message.find("negative"), std::string::npos);
}

TEST(Units, Numbers) {
  EXPECT_DOUBLE_EQ(*parse_number("0.5"), 0.5);
  EXPECT_DOUBLE_EQ(*parse_number("200"), 200);
  EXPECT_FALSE(parse_number("-0.5").ok());
  EXPECT_FALSE(parse_number("inf").ok());
  EXPECT_FALSE(parse_number("").ok());
}

TEST(Units, Durations) {
  EXPECT_EQ(*parse_duration("2s", seconds(1)), seconds(2));
  EXPECT_EQ(*parse_duration("500ms", seconds(1)), milliseconds(500));
  EXPECT_EQ(*parse_duration("3", seconds(1)), seconds(3));
  EXPECT_EQ(*parse_duration("50", milliseconds(1)), milliseconds(50));
  EXPECT_EQ(*parse_duration("1m", seconds(1)), seconds(60));
  EXPECT_EQ(*parse_duration("1.5s", seconds(1)), milliseconds(1500));
  EXPECT_EQ(*parse_duration("7us", seconds(1)), nanoseconds(7000));
  EXPECT_FALSE(parse_duration("s", seconds(1)).ok());
  EXPECT_FALSE(parse_duration("-1s", seconds(1)).ok());
  EXPECT_FALSE(parse_duration("2x", seconds(1)).ok());
}

TEST(Units, Sizes) {
  EXPECT_EQ(*parse_size("20k"), 20480u);
  EXPECT_EQ(*parse_size("1m"), 1048576u);
  EXPECT_EQ(*parse_size("7"), 7u);
  EXPECT_FALSE(parse_size("7q").ok());
}

TEST(Random, BelowStaysInRangeAndCoversIt) {
  Random rng(42);
  int seen[7] = {};
  for (int i = 0; i < 7000; ++i) {
    auto v = rng.below(7);
    ASSERT_LT(v, 7u);
    ++seen[v];
  }
  for (int s : seen)
    EXPECT_GT(s, 800);
}

}  // namespace
}  // namespace stampede
