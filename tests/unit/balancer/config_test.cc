#include <gtest/gtest.h>

#include "balancer/config.h"

namespace stampede::balancer {
namespace {

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

}  // namespace
}  // namespace stampede::balancer
