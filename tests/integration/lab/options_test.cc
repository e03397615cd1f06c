// `stampede lab` refuses loose input before it starts anything: exit status 2 and one line
// naming the option (an empty list is not "the default list"; a number is a number in range;
// names that go into a balancer's command line or a URL carry no control byte).
#include <gtest/gtest.h>

#include "support/refusal.h"

namespace stampede::lab::testing {
namespace {

using stampede::testing::bad_numbers;
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

TEST(LabOptions, NumbersOutOfRangeOrMalformedAreRefused) {
  const char* numeric[] = {
      "--instances",  "--connections",   "--duration",         "--cores",
      "--rps",        "--sessions",      "--session-requests", "--outage-duration",
      "--kill-after", "--start-timeout", "--health-intervals"};
  for (const char* option : numeric) {
    for (const std::string& value : bad_numbers()) {
      EXPECT_TRUE(refused({"lab", option, value}, option)) << option << " " << value;
    }
  }
  for (const std::string& value : bad_numbers()) {
    EXPECT_TRUE(refused({"lab", "--delay", "a=" + value}, "--delay")) << value;
    EXPECT_TRUE(refused({"lab", "--slow", "a=" + value}, "--slow")) << value;
  }
  for (const char* option :
       {"--instances", "--connections", "--duration", "--cores", "--rps", "--sessions",
        "--session-requests", "--kill-after", "--start-timeout"}) {
    EXPECT_TRUE(refused({"lab", option, "0"}, option)) << option;
  }
  EXPECT_TRUE(refused({"lab", "--rps", "10000001"}, "--rps"));
  EXPECT_TRUE(refused({"lab", "--start-timeout", "11m"}, "--start-timeout"));
}

}  // namespace
}  // namespace stampede::lab::testing
