// The lab's --rps: parsed into LoadSettings and passed on to the generator's Config.
#include <gtest/gtest.h>

#include "cli/lab_options.h"
#include "lab/runs.h"

namespace stampede::lab {
namespace {

Expected<CommandLine> parse_lab(std::vector<std::string> args) {
  args.insert(args.begin(), "lab");
  return parse_command_line(args);
}

TEST(LabRate, ClosedLoopByDefault) {
  auto cli = parse_lab({});
  ASSERT_TRUE(cli.ok()) << cli.error().message;
  EXPECT_EQ(cli->plan.config.load.rps, 0);
  EXPECT_EQ(make_load_config(cli->plan.config.load, "http://127.0.0.1:1/").rps, 0);
}

TEST(LabRate, RpsPassesThroughToTheGenerator) {
  auto cli = parse_lab({"--rps", "250.5", "-c", "4"});
  ASSERT_TRUE(cli.ok()) << cli.error().message;
  EXPECT_EQ(cli->plan.config.load.rps, 250.5);
  const loadgen::Config config = make_load_config(cli->plan.config.load, "http://127.0.0.1:1/");
  EXPECT_EQ(config.rps, 250.5);
  EXPECT_EQ(config.concurrency, 4u);
  EXPECT_TRUE(loadgen::prepare(config).ok());
}

TEST(LabRate, BadRate) {
  for (const char* bad : {"0", "-5", "lots"}) {
    auto cli = parse_lab({"--rps", bad});
    ASSERT_FALSE(cli.ok()) << bad;
    EXPECT_EQ(cli.error().message,
              std::string("--rps: expected a positive number, got '") + bad + "'");
  }
}

}  // namespace
}  // namespace stampede::lab
