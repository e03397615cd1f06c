// `stampede serve` refuses every value that could inject into its responses (--id goes into the
// x-instance header) or that is not a number it can use: exit status 2 and one line naming the
// option.
#include <gtest/gtest.h>

#include "support/refusal.h"

namespace stampede::server::testing {
namespace {

using stampede::testing::hostile_values;
using stampede::testing::refused;

TEST(ServeOptions, HeaderBoundAndAddressOptionsRefuseHostileBytes) {
  for (const auto& v : hostile_values()) {
    SCOPED_TRACE(v.what);
    EXPECT_TRUE(refused({"serve", "--port", "0", "--id", "x" + v.suffix}, "--id"));
    EXPECT_TRUE(refused({"serve", "--port", "0", "--host", "127.0.0." + v.suffix}, "--host"));
  }
}

TEST(ServeOptions, EmptyValuesAreRefusedNotTakenAsDefaults) {
  for (const char* option :
       {"--port", "--delay", "--error", "--percent", "--cores", "--id", "--host",
        "--max-header-bytes", "--idle-timeout", "--ready-file", "--max-connections"}) {
    EXPECT_TRUE(refused({"serve", "--port", "0", option, ""}, option)) << option;
  }
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
