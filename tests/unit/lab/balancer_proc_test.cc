#include "lab/balancer_proc.h"

#include <gtest/gtest.h>

namespace stampede::lab {
namespace {

Placeholders values() {
  Placeholders v;
  v.strategy = "leastconn";
  v.health_ms = 200;
  v.port = 9745;
  v.dir = "/tmp/lab";
  v.instances = {{"a", "127.0.0.1:9746"}, {"b", "127.0.0.1:9747"}};
  return v;
}

TEST(LabSubstitute, ReplacesTheKnownPlaceholders) {
  EXPECT_EQ(substitute("env STRATEGY={strategy} HEALTH={health} node balancer.mjs", values()),
            "env STRATEGY=leastconn HEALTH=200 node balancer.mjs");
  EXPECT_EQ(substitute("lb --listen 127.0.0.1:{port} {instances}", values()),
            "lb --listen 127.0.0.1:9745 a=127.0.0.1:9746,b=127.0.0.1:9747");
  EXPECT_EQ(substitute("A={addr:a} PB={port:b} D={dir}", values()),
            "A=127.0.0.1:9746 PB=9747 D=/tmp/lab");
}

TEST(LabSubstitute, LeavesEverythingElseAlone) {
  EXPECT_EQ(substitute("echo ${HOME} {unknown} {addr:z} { {strategy", values()),
            "echo ${HOME} {unknown} {addr:z} { {strategy");
  EXPECT_EQ(substitute("{{strategy}}", values()), "{leastconn}");
  EXPECT_EQ(substitute("", values()), "");
}

TEST(LabUpFlags, ReadsStampedesAndTheGuidesShapes) {
  auto ours = parse_up_flags(
      R"({"strategy":"rr","backends":[{"name":"a","up":true},{"name":"b","up":false}]})");
  EXPECT_EQ(ours, (std::map<std::string, bool>{{"a", true}, {"b", false}}));
  auto guide = parse_up_flags(
      R"({"strategy":"rr","health":200,"failed":30,"pool":[{"id":"c","up":false}]})");
  EXPECT_EQ(guide, (std::map<std::string, bool>{{"c", false}}));
  EXPECT_TRUE(parse_up_flags(R"({"id":"a"})").empty());
  EXPECT_TRUE(parse_up_flags("OK").empty());
  EXPECT_TRUE(parse_up_flags(R"({"backends":[{"name":1,"up":"yes"}]})").empty());
}

}  // namespace
}  // namespace stampede::lab
