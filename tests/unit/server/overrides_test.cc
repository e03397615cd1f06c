#include "server/overrides.h"

#include <gtest/gtest.h>

namespace stampede::server {
namespace {

TEST(Overrides, ReadsEveryKnownParameter) {
  Overrides o;
  ASSERT_FALSE(parse_overrides("delay=50&status=503&size=20k&close=1", o));
  EXPECT_EQ(o.delay_ns, 50'000'000);
  EXPECT_EQ(o.status, 503);
  EXPECT_EQ(o.size, 20480u);
  EXPECT_TRUE(o.close);
  EXPECT_TRUE(o.any());
}

TEST(Overrides, DelayTakesUnits) {
  Overrides o;
  ASSERT_FALSE(parse_overrides("delay=1.5s", o));
  EXPECT_EQ(o.delay_ns, 1'500'000'000);
  ASSERT_FALSE(parse_overrides("delay=250us", o));
  EXPECT_EQ(o.delay_ns, 250'000);
  ASSERT_FALSE(parse_overrides("delay=0", o));
  EXPECT_EQ(o.delay_ns, 0);
}

TEST(Overrides, UnknownParametersAreIgnored) {
  Overrides o;
  ASSERT_FALSE(parse_overrides("r=12345&cachebust&x=y", o));
  EXPECT_FALSE(o.any());
  ASSERT_FALSE(parse_overrides("", o));
  EXPECT_FALSE(o.any());
}

TEST(Overrides, CloseAcceptsFlagForms) {
  Overrides o;
  ASSERT_FALSE(parse_overrides("close", o));
  EXPECT_TRUE(o.close);
  ASSERT_FALSE(parse_overrides("close=false", o));
  EXPECT_FALSE(o.close);
}

TEST(Overrides, BadValuesAreErrors) {
  const char* bad[] = {"delay=abc",  "delay=-5",   "delay=11m",   "status=99",
                       "status=600", "status=2xx", "status=",     "size=1g",
                       "size=-1",    "size=lots",  "close=maybe", "delay=50&status=1000"};
  for (const char* query : bad) {
    Overrides o;
    auto error = parse_overrides(query, o);
    ASSERT_TRUE(error) << query;
    EXPECT_FALSE(error->message.empty()) << query;
  }
}

TEST(Overrides, LimitsAreInclusive) {
  Overrides o;
  EXPECT_FALSE(parse_overrides("delay=10m", o));
  EXPECT_FALSE(parse_overrides("size=64m", o));
  EXPECT_EQ(o.size, kMaxOverrideSize);
  EXPECT_FALSE(parse_overrides("status=200", o));
  EXPECT_FALSE(parse_overrides("status=599", o));
}

}  // namespace
}  // namespace stampede::server
