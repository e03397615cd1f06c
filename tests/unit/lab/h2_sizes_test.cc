// The h2 scenario's sizes (--h2-connections, --h2-streams): their defaults, what prepare()
// refuses (one line each: out of range, as many connections as instances, given without the
// h2 scenario), the generator's config and the scenario's title from them, and the findings
// with sizes other than the default.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "lab/h2.h"
#include "lab/lab.h"
#include "lab/plan.h"
#include "lab/tables.h"
#include "lab_records.h"

namespace stampede::lab {
namespace {

LabConfig h2_lab(std::size_t instances) {
  LabConfig config;
  config.instances = default_instances(instances);
  config.scenarios = {ScenarioKind::H2};
  return config;
}

std::string refusal_of(const LabConfig& config) {
  auto plan = prepare(config);
  return plan.ok() ? std::string("(accepted)") : plan.error().message;
}

TEST(H2Sizes, DefaultsAreTwoConnectionsOfTenStreamsOrOneForAPoolOfTwo) {
  auto plan = prepare(h2_lab(3));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(h2_load_of(plan->config).connections, 2u);
  EXPECT_EQ(h2_load_of(plan->config).streams, 10u);
  auto pair = prepare(h2_lab(2));
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  EXPECT_EQ(h2_load_of(pair->config).connections, 1u);
}

TEST(H2Sizes, GivenSizesReachTheGeneratorAndTheTitle) {
  LabConfig config = h2_lab(5);
  config.h2_connections = 4;
  config.h2_streams = 32;
  auto plan = prepare(config);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const loadgen::Config load = h2_load_config(plan->config, "http://127.0.0.1:9/");
  EXPECT_TRUE(load.http2);
  EXPECT_EQ(load.concurrency, 4u);
  EXPECT_EQ(load.streams, 32u);
  LabResult result;
  result.config = plan->config;
  EXPECT_EQ(scenario_title(result, ScenarioKind::H2),
            "h2 — 4 HTTP/2 connections (h2c) x 32 streams: per request or per connection?");
}

TEST(H2Sizes, OutOfRangeOrAsManyConnectionsAsInstancesIsOneLine) {
  const std::string too_many =
      "--h2-connections: 1 to 2 with 3 instances: the h2 scenario needs fewer connections than "
      "instances, or a balancer of whole connections could reach every instance and look like "
      "one of requests";
  for (std::uint32_t connections : {0u, 3u, 4u, 1000000u}) {
    LabConfig config = h2_lab(3);
    config.h2_connections = connections;
    EXPECT_EQ(refusal_of(config), too_many) << connections;
  }
  for (std::uint32_t streams : {0u, 1001u}) {
    LabConfig config = h2_lab(3);
    config.h2_streams = streams;
    EXPECT_EQ(refusal_of(config), "--h2-streams: 1 to 1000 streams per connection") << streams;
  }
  LabConfig pair = h2_lab(2);
  pair.h2_connections = 2;
  EXPECT_EQ(refusal_of(pair).rfind("--h2-connections: 1 to 1 with 2 instances", 0), 0u)
      << refusal_of(pair);
  LabConfig edges = h2_lab(3);
  edges.h2_connections = 2;
  edges.h2_streams = 1000;
  EXPECT_EQ(refusal_of(edges), "(accepted)");
  edges.h2_streams = 1;
  edges.h2_connections = 1;
  EXPECT_EQ(refusal_of(edges), "(accepted)");
}

TEST(H2Sizes, SizesWithoutTheH2ScenarioAreRefused) {
  LabConfig config = h2_lab(3);
  config.scenarios = {ScenarioKind::Even};
  config.h2_streams = 20;
  EXPECT_EQ(refusal_of(config),
            "--h2-connections and --h2-streams set the h2 scenario's load: add h2 to --scenarios");
  config.h2_streams.reset();
  config.h2_connections = 1;
  EXPECT_NE(refusal_of(config), "(accepted)");
  config.h2_connections.reset();
  EXPECT_EQ(refusal_of(config), "(accepted)");
}

// Four connections over five instances: a connection-level balancer leaves one idle, and the
// finding counts the connections that were asked for.
TEST(H2Sizes, FindingsHoldWithOtherSizes) {
  RunRecord pinned = testing::make_run(
      ScenarioKind::H2, "rr",
      {{"a", 0, 900}, {"b", 0, 800}, {"c", 0, 0}, {"d", 0, 700}, {"e", 0, 600}}, 9000);
  pinned.health_ms = 0;
  pinned.h2 = H2Load{4, 32};
  std::vector<Finding> found;
  read_h2(pinned, found);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, FindingKind::H2FollowsConnections);
  EXPECT_NE(found[0].text.find("4 HTTP/2 connections x 32 streams reached 4 of 5 instances (c "
                               "served nothing while up)"),
            std::string::npos)
      << found[0].text;

  RunRecord even = testing::make_run(
      ScenarioKind::H2, "rr",
      {{"a", 0, 700}, {"b", 0, 700}, {"c", 0, 700}, {"d", 0, 700}, {"e", 0, 700}}, 9000);
  even.h2 = H2Load{4, 32};
  found.clear();
  read_h2(even, found);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, FindingKind::H2PerRequest);
  EXPECT_NE(found[0].text.find("A connection-level balancer could have used at most 4."),
            std::string::npos)
      << found[0].text;
}

}  // namespace
}  // namespace stampede::lab
