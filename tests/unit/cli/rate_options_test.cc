// --rps and --ramp on the command line and in .loadtestrc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/generator.h"
#include "generator_fixture.h"
#include "support/process.h"

namespace stampede::loadgen {
namespace {

using ::testing::HasSubstr;

using RateOptions = OptionsBeforeUrl;

TEST_F(RateOptions, ClosedLoopByDefault) {
  Config c = config({});
  EXPECT_EQ(c.rps, 0);
  EXPECT_EQ(c.ramp.count(), 0);
}

TEST_F(RateOptions, RpsAndRamp) {
  Config c = config({"--rps", "0.5"});
  EXPECT_EQ(c.rps, 0.5);
  c = config({"--rps", "2000", "--ramp", "3"});
  EXPECT_EQ(c.rps, 2000);
  EXPECT_EQ(c.ramp, std::chrono::seconds(3));
  c = config({"--rps", "10", "--ramp", "500ms"});
  EXPECT_EQ(c.ramp, std::chrono::milliseconds(500));
}

TEST_F(RateOptions, BadRates) {
  EXPECT_THAT(error({"--rps", "0"}), HasSubstr("--rps: expected a positive number"));
  EXPECT_THAT(error({"--rps", "-3"}), HasSubstr("--rps: expected a positive number"));
  EXPECT_THAT(error({"--rps", "fast"}), HasSubstr("--rps: expected a positive number"));
  EXPECT_THAT(error({"--rps", "nan"}), HasSubstr("--rps"));
  EXPECT_EQ(error({"--ramp", "2"}), "--ramp: needs --rps");
  EXPECT_THAT(error({"--rps", "10", "--ramp", "soon"}), HasSubstr("--ramp"));
}

TEST_F(RateOptions, LoadtestrcRequestsPerSecond) {
  write_rc(R"({"requestsPerSecond": 250, "ramp": 2})");
  Config c = config({});
  EXPECT_EQ(c.rps, 250);
  EXPECT_EQ(c.ramp, std::chrono::seconds(2));
  EXPECT_EQ(config({"--rps", "7"}).rps, 7);  // the command line wins
  write_rc(R"({"requestsPerSecond": 0})");   // loadtest's "unset"
  EXPECT_EQ(config({}).rps, 0);
  write_rc(R"({"requestsPerSecond": "0.25"})");
  EXPECT_EQ(config({}).rps, 0.25);
  write_rc(R"({"requestsPerSecond": -1})");
  EXPECT_THAT(error({}), HasSubstr(".loadtestrc requestsPerSecond: expected a positive number"));
  write_rc(R"({"requestsPerSecond": true})");
  EXPECT_EQ(error({}), ".loadtestrc requestsPerSecond: expected a number");
}

TEST_F(RateOptions, PrepareChecksLibraryConfigs) {
  Config c;
  c.url = "http://127.0.0.1:8080/";
  c.rps = -1;
  EXPECT_FALSE(prepare(c).ok());
  c.rps = 0;
  c.ramp = std::chrono::seconds(1);
  EXPECT_FALSE(prepare(c).ok());
  c.rps = 5;
  EXPECT_TRUE(prepare(c).ok());
}

}  // namespace
}  // namespace stampede::loadgen
