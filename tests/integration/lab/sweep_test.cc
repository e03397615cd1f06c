// `stampede lab --sweep-connections`: the same closed-loop steps through the balancer and
// straight to one instance, side by side, in JSON and HTML; bad steps refused before anything
// starts.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "lab_support.h"
#include "support/temp_dir.h"

namespace stampede::lab::testing {
namespace {

using namespace std::chrono_literals;

TEST(LabSweep, ThePoolAndOneInstanceSideBySide) {
  const stampede::testing::TempDir temp_dir;
  const std::string html = temp_dir.path() + "/sweep.html";
  const LabRun lab =
      run_lab({"--sweep-connections", "1,4", "-t", "0.3", "--strategies", "rr", "--html", html});
  ASSERT_EQ(lab.status, 0) << lab.err;
  const nlohmann::json& doc = lab.doc;
  // The sweep alone: no scenario ran.
  EXPECT_TRUE(doc["runs"].empty());
  const nlohmann::json& sweep = doc["sweep"];
  EXPECT_EQ(sweep["strategy"], "rr");
  EXPECT_EQ(sweep["instance"], "a");
  for (const char* side : {"pool", "single"}) {
    ASSERT_EQ(sweep[side].size(), 2u) << side;
    EXPECT_EQ(sweep[side][0]["connections"], 1) << side;
    EXPECT_EQ(sweep[side][1]["connections"], 4) << side;
    for (const auto& step : sweep[side]) {
      EXPECT_GT(step["requests"].get<std::uint64_t>(), 0u) << side;
      EXPECT_EQ(step["errors"], 0) << side;
      EXPECT_GT(step["rps"].get<double>(), 0) << side;
    }
  }
  const auto found = findings_of(doc, "sweep-pool-vs-single");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0]["text"].get<std::string>().find("instance a alone at"), std::string::npos)
      << found[0]["text"];
  for (std::uint16_t port : instance_ports(doc))
    EXPECT_FALSE(listening(port)) << "port " << port;
  std::ifstream in(html);
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(page.find("Sweep: throughput against connections"), std::string::npos);
  EXPECT_NE(page.find("sweep — the pool (rr) against instance a alone"), std::string::npos);
}

TEST(LabSweep, BadStepsAreRefusedBeforeAnythingStarts) {
  const LabRun zero = run_lab({"--sweep-connections", "0"}, 20s);
  EXPECT_EQ(zero.status, 2);
  EXPECT_EQ(zero.err, "stampede: --sweep-connections: a step needs at least 1 connection\n");
  const LabRun down = run_lab({"--sweep-connections", "4,2"}, 20s);
  EXPECT_EQ(down.status, 2);
  EXPECT_EQ(down.err.rfind("stampede: --sweep-connections: the counts must go up", 0), 0u)
      << down.err;
  const LabRun open = run_lab({"--sweep-connections", "1,2", "--rps", "100"}, 20s);
  EXPECT_EQ(open.status, 2);
  EXPECT_EQ(open.err.rfind("stampede: --sweep-connections cannot go with --rps", 0), 0u)
      << open.err;
}

}  // namespace
}  // namespace stampede::lab::testing
