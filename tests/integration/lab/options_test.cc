// `stampede lab` refuses loose input before it starts anything: exit status 2 and one line
// naming the option (an empty list is not "the default list"; a number is a number in range;
// names that go into a balancer's command line or a URL carry no control byte).
#include <gtest/gtest.h>

#include "support/refusal.h"

namespace stampede::lab::testing {
namespace {

using stampede::testing::hostile_values;
using stampede::testing::refused;

TEST(LabOptions, EmptyValuesAreRefusedNotTakenAsDefaults) {
  for (const char* option :
       {"--strategies", "--scenarios", "--health-intervals", "--sticky-strategy", "--slow",
        "--kill", "--instances", "--instance", "--delay", "--balancer-url", "--balancer-cmd",
        "--connections", "--duration", "--rps", "--html", "--stampede", "--start-timeout"}) {
    EXPECT_TRUE(refused({"lab", option, ""}, option)) << option;
  }
  EXPECT_TRUE(refused({"lab", "--strategies", ","}, "--strategies"));
}

TEST(LabOptions, NamesAndUrlsRefuseHostileBytes) {
  for (const auto& v : hostile_values()) {
    SCOPED_TRACE(v.what);
    EXPECT_TRUE(refused({"lab", "--strategies", "rr" + v.suffix}, "--strategies"));
    EXPECT_TRUE(refused({"lab", "--sticky-strategy", "s" + v.suffix}, "--sticky-strategy"));
    // A non-ASCII path is percent-encoded (the generator's URL rules), so not refused.
    if (v.suffix.find('\xc3') == std::string::npos) {
      EXPECT_TRUE(
          refused({"lab", "--balancer-url", "http://127.0.0.1:9/" + v.suffix}, "--balancer-url"));
    }
    EXPECT_TRUE(refused(
        {"lab", "--instance", "a" + v.suffix + "=127.0.0.1:0", "--instance", "b=127.0.0.1:0"},
        "instance"));
  }
  EXPECT_TRUE(refused({"lab", "--strategies", "rr;touch x"}, "--strategies"));
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
