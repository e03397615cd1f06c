// `stampede serve` refuses every value that could inject into its responses (--id goes into the
// x-instance header) or that is not a number it can use: exit status 2 and one line naming the
// option.
#include <gtest/gtest.h>

#include "support/refusal.h"

namespace stampede::server::testing {
namespace {

using stampede::testing::bad_numbers;
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

TEST(ServeOptions, NumbersOutOfRangeOrMalformedAreRefused) {
  const char* numeric[] = {"--delay",
                           "--error",
                           "--percent",
                           "--cores",
                           "--max-header-bytes",
                           "--max-uri-bytes",
                           "--max-body-bytes",
                           "--idle-timeout",
                           "--header-timeout",
                           "--drain-timeout",
                           "--max-connections"};
  for (const char* option : numeric) {
    for (const std::string& value : bad_numbers()) {
      EXPECT_TRUE(refused({"serve", "--port", "0", option, value}, option))
          << option << " " << value;
    }
  }
  for (const std::string& value : bad_numbers()) {
    EXPECT_TRUE(refused({"serve", "--port", value}, "port")) << value;
  }
  EXPECT_TRUE(refused({"serve", "--port", "65536"}, "port"));
  for (const char* option :
       {"--cores", "--error", "--idle-timeout", "--header-timeout", "--max-connections"}) {
    EXPECT_TRUE(refused({"serve", "--port", "0", option, "0"}, option)) << option;
  }
  EXPECT_TRUE(refused({"serve", "--port", "0", "--delay", "11m"}, "--delay"));
  EXPECT_TRUE(refused({"serve", "--port", "0", "--idle-timeout", "25h"}, "--idle-timeout"));
  EXPECT_TRUE(refused({"serve", "--port", "0", "--max-uri-bytes", "100g"}, "--max-uri-bytes"));
  EXPECT_TRUE(refused({"serve", "--port", "0", "--percent", "100.5"}, "--percent"));
  EXPECT_TRUE(refused({"serve", "--port", "0", "--error", "600"}, "--error"));
}

}  // namespace
}  // namespace stampede::server::testing
