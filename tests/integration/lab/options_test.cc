// `stampede lab` refuses loose input before it starts anything: exit status 2 and one line
// naming the option (an empty list is not "the default list"; a number is a number in range;
// names that go into a balancer's command line or a URL carry no control byte).
#include <gtest/gtest.h>

#include <string>

#include "support/refusal.h"

namespace stampede::lab::testing {
namespace {

using stampede::testing::refused;

// Every empty value and every hostile value of each option is swept in-process
// (tests/unit/cli/option_ranges_test.cc); here the binary exits 2 with one line for a few.
TEST(LabOptions, EmptyValuesAreRefusedNotTakenAsDefaults) {
  EXPECT_TRUE(refused({"lab", "--strategies", ""}, "--strategies"));
  EXPECT_TRUE(refused({"lab", "--instance", ""}, "--instance"));
}

TEST(LabOptions, NamesAndUrlsRefuseHostileBytes) {
  const std::string crlf = "a\r\nX-Injected: 1";
  EXPECT_TRUE(refused({"lab", "--strategies", "rr" + crlf}, "--strategies"));
  EXPECT_TRUE(refused({"lab", "--sticky-strategy", "s" + crlf}, "--sticky-strategy"));
  EXPECT_TRUE(refused({"lab", "--balancer-url", "http://127.0.0.1:9/" + crlf}, "--balancer-url"));
  EXPECT_TRUE(
      refused({"lab", "--instance", "a" + crlf + "=127.0.0.1:0", "--instance", "b=127.0.0.1:0"},
              "instance"));
}

// Every numeric option over every malformed value is swept in-process
// (tests/unit/cli/option_ranges_test.cc); here the binary exits 2 with one line for each kind.
TEST(LabOptions, NumbersOutOfRangeOrMalformedAreRefused) {
  EXPECT_TRUE(refused({"lab", "--instances", "-1"}, "--instances"));
  EXPECT_TRUE(refused({"lab", "--duration", "inf"}, "--duration"));
  EXPECT_TRUE(refused({"lab", "--slow", "a=5x"}, "--slow"));
  EXPECT_TRUE(refused({"lab", "--connections", "0"}, "--connections"));
  EXPECT_TRUE(refused({"lab", "--rps", "10000001"}, "--rps"));
  EXPECT_TRUE(refused({"lab", "--start-timeout", "11m"}, "--start-timeout"));
}

}  // namespace
}  // namespace stampede::lab::testing
