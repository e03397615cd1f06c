// The limit scenario against the built-in balancer: instance c resets every connection past 2.
// The instances answer after 5 ms so that 12 client connections need more than 2 connections to
// c at once. The balancer takes c out at its first reset (passive detection, --eject-time 5 s,
// longer than the run); with --retries 1 the refused requests are re-sent to a or b, with 0 the
// ones already written to c's refused connections fail (how many is a race with the reset: a
// reset seen before the request is written is re-routed whatever --retries says).
#include <gtest/gtest.h>

#include "lab_support.h"

namespace stampede::lab::testing {
namespace {

TEST(LabLimit, RetriesRouteAroundRefusalsAndWithoutThemClientsSeeThem) {
  const LabRun lab =
      run_lab({"-t", "500ms", "--scenarios", "limit", "--strategies", "rr,least", "--delay", "a=5",
               "--delay", "b=5", "--delay", "c=5", "--limit", "c=2"});
  ASSERT_EQ(lab.status, 0) << lab.err << lab.out;
  for (const char* strategy : {"rr", "least"}) {
    const auto& with = run_named(lab.doc, std::string("limit/") + strategy + "/retries=1");
    const auto& without = run_named(lab.doc, std::string("limit/") + strategy + "/retries=0");
    EXPECT_EQ(with["retries"], 1);
    EXPECT_EQ(with["instances"][2]["max_connections"], 2);
    EXPECT_FALSE(without["instances"][0].contains("max_connections"));
    EXPECT_EQ(with["errors"], 0) << strategy << ": a refused attempt is re-sent elsewhere";
    EXPECT_GT(with["requests"].get<std::uint64_t>(), 100u);
    // At most the requests in flight when c first refused: one per client connection.
    EXPECT_LE(without["errors"].get<std::uint64_t>(), 12u) << strategy;
    for (const auto& code : without["error_codes"].items())
      EXPECT_EQ(code.key(), "502") << strategy;
    for (const auto* run : {&with, &without}) {
      EXPECT_LT(shares(*run)["c"], 0.05) << strategy << ": c is out after its first refusal";
      EXPECT_EQ(counts(*run, "count"), counts(*run, "x_instance"));
    }
  }
  EXPECT_EQ(findings_of(lab.doc, "limit-routed-around").size() +
                findings_of(lab.doc, "limit-failures").size(),
            4u);
  const auto summary = findings_of(lab.doc, "limit-summary");
  ASSERT_EQ(summary.size(), 1u);
  const std::string text = summary[0]["text"];
  const std::size_t around = text.find("routed around the refusals: rr retries=1");
  EXPECT_NE(around, std::string::npos) << text;
  EXPECT_LT(text.find("least retries=1"), text.find("passed them to clients")) << text;
  EXPECT_TRUE(lab.doc["ok"].get<bool>());
}

}  // namespace
}  // namespace stampede::lab::testing
