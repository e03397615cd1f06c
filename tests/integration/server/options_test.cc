// `stampede serve` refuses every value that could inject into its responses (--id goes into the
// x-instance header) or that is not a number it can use: exit status 2 and one line naming the
// option.
#include <gtest/gtest.h>

#include <string>

#include "support/refusal.h"

namespace stampede::server::testing {
namespace {

using stampede::testing::refused;

// Every hostile value and every empty value of each option is swept in-process
// (tests/unit/cli/option_ranges_test.cc); here the binary exits 2 with one line for one of each.
TEST(ServeOptions, HeaderBoundAndAddressOptionsRefuseHostileBytes) {
  const std::string crlf = "a\r\nX-Injected: 1";
  EXPECT_TRUE(refused({"serve", "--port", "0", "--id", "x" + crlf}, "--id"));
  EXPECT_TRUE(refused({"serve", "--port", "0", "--host", "127.0.0." + crlf}, "--host"));
}

TEST(ServeOptions, EmptyValuesAreRefusedNotTakenAsDefaults) {
  EXPECT_TRUE(refused({"serve", "--port", "0", "--port", ""}, "--port"));
  EXPECT_TRUE(refused({"serve", "--port", "0", "--id", ""}, "--id"));
}

// Every numeric option over every malformed value is swept in-process
// (tests/unit/cli/option_ranges_test.cc); here the binary exits 2 with one line for each kind.
TEST(ServeOptions, NumbersOutOfRangeOrMalformedAreRefused) {
  EXPECT_TRUE(refused({"serve", "--port", "0", "--delay", "-1"}, "--delay"));
  EXPECT_TRUE(refused({"serve", "--port", "0", "--percent", "nan"}, "--percent"));
  EXPECT_TRUE(refused({"serve", "--port", "0", "--max-body-bytes", "99999999999999999999999"},
                      "--max-body-bytes"));
  EXPECT_TRUE(refused({"serve", "--port", "65536"}, "port"));
  EXPECT_TRUE(refused({"serve", "--port", "0", "--cores", "0"}, "--cores"));
  EXPECT_TRUE(refused({"serve", "--port", "0", "--idle-timeout", "25h"}, "--idle-timeout"));
}

}  // namespace
}  // namespace stampede::server::testing
