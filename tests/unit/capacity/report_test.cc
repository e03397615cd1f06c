// The capacity search's reports over a made-up result: the text table and sentence, the JSON
// fields (docs/capacity.md), and the HTML page with its p99-against-rate chart.
#include "loadgen/report/capacity.h"

#include <gtest/gtest.h>

#include <sstream>

#include "report/html_report.h"
#include "support/text_checks.h"

namespace stampede::loadgen {
namespace {

CapacityStep made_step(double asked, double held, double p99, StepVerdict verdict,
                       std::string reason = "") {
  CapacityStep s;
  s.asked_rps = asked;
  s.held_rps = held;
  s.seconds = 2;
  s.requests = static_cast<std::uint64_t>(held * 2);
  s.p50_ms = p99 / 2;
  s.p99_ms = p99;
  s.p999_ms = p99 * 1.5;
  s.verdict = verdict;
  s.reason = std::move(reason);
  return s;
}

CapacityResult found_search() {
  CapacityResult r;
  r.url = "http://127.0.0.1:1/<x>";
  r.clients = 4;
  r.params.max_p99_ms = 50;
  r.steps = {made_step(200, 200, 12, StepVerdict::Pass),
             made_step(400, 352, 80, StepVerdict::RateNotHeld, "352.0 req/s held of 400.0"),
             made_step(300, 300, 14, StepVerdict::Pass)};
  r.end = SearchEnd::Found;
  r.last_pass = 300;
  r.first_fail = 400;
  return r;
}

TEST(CapacityReport, TextHasEveryStepAndTheCapacity) {
  std::ostringstream out;
  write_capacity_text(found_search(), out);
  const std::string text = out.str();
  EXPECT_TRUE(stampede::testing::contains_all(
      text, {"   2       400.0       352.0     2.0     40.00     80.00    120.00",
             "Capacity: 300.0 req/s (the last passing step); 400.0 req/s failed "
             "(352.0 req/s held of 400.0)."}));
}

TEST(CapacityReport, JsonHasTheOutcomeAndTheSteps) {
  const nlohmann::ordered_json j = capacity_to_json(found_search());
  EXPECT_EQ(j["outcome"], "found");
  EXPECT_EQ(j["capacityRps"], 300.0);
  EXPECT_EQ(j["firstFailingRps"], 400.0);
  EXPECT_EQ(j["limits"]["maxP99Ms"], 50.0);
  ASSERT_EQ(j["steps"].size(), 3u);
  EXPECT_EQ(j["steps"][1]["verdict"], "rate");
  EXPECT_EQ(j["steps"][1]["heldRps"], 352.0);
  EXPECT_TRUE(j["probeRps"].is_null());
}

TEST(CapacityReport, SentencesForEachEnd) {
  CapacityResult r = found_search();
  r.end = SearchEnd::FirstStepFailed;
  r.last_pass.reset();
  r.first_fail = 400;
  EXPECT_EQ(capacity_sentence(r).rfind("No capacity found: even the first step, 400.0 req/s", 0),
            0u);
  EXPECT_EQ(capacity_to_json(r)["outcome"], "first_step_failed");
  r.end = SearchEnd::Stopped;
  r.generator_limited = true;
  r.last_pass = 300;
  r.steps.back().verdict = StepVerdict::GeneratorLimit;
  EXPECT_NE(capacity_sentence(r).find("the generator, not the server"), std::string::npos);
  EXPECT_NE(capacity_sentence(r).find("at least 300.0 req/s"), std::string::npos);
  EXPECT_EQ(capacity_to_json(r)["outcome"], "generator_limit");
}

TEST(CapacityReport, HtmlPlotsP99AgainstRate) {
  std::ostringstream out;
  report::write_html(capacity_report_data(found_search()), out);
  const std::string html = out.str();
  EXPECT_NE(html.find("p99 against rate"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("rate asked (req/s)"), std::string::npos);
  EXPECT_NE(html.find("&lt;x&gt;"), std::string::npos);  // the URL, escaped
  EXPECT_EQ(html.find("<x>"), std::string::npos);
  EXPECT_NE(html.find("Steps, in the order run"), std::string::npos);
}

}  // namespace
}  // namespace stampede::loadgen
