#include <gtest/gtest.h>

#include <fstream>

#include "balancer/config.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace stampede::balancer {
namespace {

Result<CommandLine> parse(std::vector<std::string> args) {
  args.insert(args.begin(), "balance");
  std::vector<const char*> argv;
  for (auto& a : args)
    argv.push_back(a.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data());
}

TEST(BackendSpec, NameAddressWeight) {
  auto a = parse_backend_spec("a=127.0.0.1:9746");
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->name, "a");
  EXPECT_EQ(a->address, "127.0.0.1:9746");
  EXPECT_EQ(a->weight, 1);
  auto b = parse_backend_spec("b=127.0.0.1:9747,weight=3");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->weight, 3);
  EXPECT_FALSE(parse_backend_spec("127.0.0.1:9747"));
  EXPECT_FALSE(parse_backend_spec("b=127.0.0.1:9747,weight=0"));
  EXPECT_FALSE(parse_backend_spec("b=127.0.0.1:9747,speed=3"));
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

TEST(Validate, RejectsBadConfigurations) {
  BalancerConfig c;
  EXPECT_FALSE(validate(c));  // no backend
  c.backends = {{"a", "127.0.0.1:1", 1}, {"a", "127.0.0.1:2", 1}};
  auto dup = validate(c);
  ASSERT_FALSE(dup);
  EXPECT_NE(dup.error().message.find("duplicate"), std::string::npos);
  c.backends = {{"a", "127.0.0.1", 1}};
  EXPECT_FALSE(validate(c));
  c.backends = {{"a", "127.0.0.1:99999", 1}};
  EXPECT_FALSE(validate(c));
  c.backends = {{"a", "127.0.0.1:1", 1}};
  EXPECT_TRUE(validate(c));
  c.listen = "nowhere";
  EXPECT_FALSE(validate(c));
}

TEST(ConfigFile, SameContentAsTheCommandLine) {
  auto c = parse_config_json(R"({"listen": "127.0.0.1:0", "strategy": "sticky",
    "backend": ["a=127.0.0.1:9746,weight=3", {"name": "b", "address": "127.0.0.1:9747"}],
    "health-interval": 1000, "health-path": "/health", "sticky-header": "x-user",
    "eject-time": "2s"})");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->strategy, Strategy::Sticky);
  ASSERT_EQ(c->backends.size(), 2u);
  EXPECT_EQ(c->backends[0].weight, 3);
  EXPECT_EQ(c->backends[1].name, "b");
  EXPECT_EQ(c->health_interval, Millis(1000));
  EXPECT_EQ(c->health_path, "/health");
  EXPECT_EQ(c->sticky_header, "x-user");
  EXPECT_EQ(c->eject_time, Millis(2000));
  EXPECT_FALSE(parse_config_json("{\"colour\": \"blue\"}"));
  EXPECT_FALSE(parse_config_json("[1, 2]"));
  EXPECT_FALSE(parse_config_json("{\"backend\": \"a=127.0.0.1:1\"}"));
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
