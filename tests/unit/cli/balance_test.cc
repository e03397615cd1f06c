// `stampede balance`'s command line: options into a BalancerConfig, over a --config file.
#include <gtest/gtest.h>

#include <fstream>

#include "cli/balance.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace stampede::balancer {
namespace {

Expected<CommandLine> parse(std::vector<std::string> args) {
  args.insert(args.begin(), "balance");
  std::vector<const char*> argv;
  for (auto& a : args)
    argv.push_back(a.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data());
}

TEST(CommandLine, TheIssueExample) {
  auto cl = parse({"--listen", "127.0.0.1:9745", "--backend", "a=127.0.0.1:9746", "--backend",
                   "b=127.0.0.1:9747", "--backend", "c=127.0.0.1:9748", "--strategy", "least",
                   "--health-interval", "200", "--cores", "2", "--retries", "0"});
  ASSERT_TRUE(cl) << cl.error().message;
  const BalancerConfig& c = cl->config;
  EXPECT_EQ(c.backends.size(), 3u);
  EXPECT_EQ(c.strategy, Strategy::Least);
  EXPECT_EQ(c.health_interval, Millis(200));
  EXPECT_EQ(c.effective_health_timeout(), Millis(200));
  EXPECT_EQ(c.cores, 2);
  EXPECT_EQ(c.retries, 0);
  EXPECT_EQ(c.rise, 2);
  EXPECT_EQ(c.fall, 3);
  EXPECT_TRUE(validate(c));
}

TEST(CommandLine, DurationsTakeUnits) {
  auto cl = parse(
      {"--backend", "a=127.0.0.1:1", "--health-interval", "2s", "--backend-timeout", "250ms"});
  ASSERT_TRUE(cl);
  EXPECT_EQ(cl->config.health_interval, Millis(2000));
  EXPECT_EQ(cl->config.effective_health_timeout(), Millis(1000));
  EXPECT_EQ(cl->config.backend_timeout, Millis(250));
}

TEST(CommandLine, BadInputIsAnError) {
  EXPECT_FALSE(parse({"--backend", "a=127.0.0.1:1", "--strategy", "fastest"}));
  EXPECT_FALSE(parse({"--backend", "a=127.0.0.1:1", "--cores", "0"}));
  EXPECT_FALSE(parse({"--backend", "a=127.0.0.1:1", "--health-interval", "soon"}));
  EXPECT_FALSE(parse({"--no-such-option"}));
}

TEST(ConfigFile, CommandLineOverridesTheFile) {
  const testing::TempDir temp_dir;
  const std::string& dir = temp_dir.path();
  std::string path = dir + "/lb.json";
  std::ofstream(path) << R"({"strategy": "least", "backend": ["a=127.0.0.1:1"], "cores": 2})";
  auto cl = parse({"--config", path, "--strategy", "p2c"});
  ASSERT_TRUE(cl) << cl.error().message;
  EXPECT_EQ(cl->config.strategy, Strategy::P2c);
  EXPECT_EQ(cl->config.cores, 2);
  EXPECT_EQ(cl->config.backends.size(), 1u);
  EXPECT_FALSE(parse({"--config", dir + "/missing.json"}));
}

}  // namespace
}  // namespace stampede::balancer
