// `stampede lab --scenarios hang` against its own balancer: an instance stopped with SIGSTOP
// mid-run and continued; the failures, detection and recovery it reports, counts that add up,
// and every process gone afterwards (a stopped one included).
#include <gtest/gtest.h>

#include "lab_support.h"

namespace stampede::lab::testing {
namespace {

TEST(LabHang, BuiltInBalancerTakesAHungInstanceOutOnlyWithChecks) {
  // 0.3 s in, c stops for 0.9 s of a 1.5 s run; a 250 ms backend timeout; checks off, then
  // every 100 ms (timeout 100 ms, fall 3).
  const LabRun lab = run_lab({"--scenarios", "hang", "--strategies", "rr", "--health-intervals",
                              "0,100", "--outage-duration", "1.5s", "--kill-after", "0.3s",
                              "--hang-for", "0.9s", "--backend-timeout", "250", "-c", "6"});
  ASSERT_EQ(lab.status, 0) << lab.err << lab.out;
  const auto& off = run_named(lab.doc, "hang/rr/health=off");
  const auto& checked = run_named(lab.doc, "hang/rr/health=100ms");
  for (const auto* run : {&off, &checked}) {
    const auto& h = (*run)["hang"];
    ASSERT_TRUE(h.is_object()) << run->dump();
    EXPECT_EQ(h["hung"], "c");
    EXPECT_EQ(h["backend_timeout_ms"], 250);
    EXPECT_NEAR(h["hang_s"].get<double>(), 0.9, 0.3);
    // The counts add up: every failure was timed in the hang or after it, and each failure is a
    // 504 from the balancer's backend timeout (the instance refused nothing).
    const auto errors = (*run)["errors"].get<std::uint64_t>();
    EXPECT_EQ(
        h["failed_in_hang"].get<std::uint64_t>() + h["failed_after_resume"].get<std::uint64_t>(),
        errors);
    EXPECT_GT(errors, 0u);
    EXPECT_EQ((*run)["error_codes"].value("504", std::uint64_t{0}), errors) << run->dump();
    // x-instance and /count agree within the failures (the sources check passed: exit 0).
    const auto by_count = counts(*run, "count");
    const auto by_header = counts(*run, "x_instance");
    ASSERT_EQ(by_count.size(), 3u);
    std::uint64_t answered = 0;
    for (const auto& [name, n] : by_header)
      answered += n;
    EXPECT_EQ(answered + errors, (*run)["requests"].get<std::uint64_t>());
  }
  // Without checks nothing takes c out: failures until the resume, no "down".
  EXPECT_TRUE(off["hang"]["down_after_stop_s"].is_null());
  EXPECT_GT(off["hang"]["last_failure_in_hang_s"].get<double>(), 0.6);
  // With checks the balancer marks c down within the checks' timeouts (3 x 100 ms plus margin
  // for a loaded host) and back up after the resume; failures stop before the resume.
  ASSERT_TRUE(checked["hang"]["down_after_stop_s"].is_number()) << checked.dump();
  EXPECT_LT(checked["hang"]["down_after_stop_s"].get<double>(), 0.8);
  ASSERT_TRUE(checked["hang"]["up_after_resume_s"].is_number()) << checked.dump();
  EXPECT_LT(checked["errors"].get<std::uint64_t>(), off["errors"].get<std::uint64_t>());

  const auto damage = findings_of(lab.doc, "hang-damage");
  ASSERT_EQ(damage.size(), 1u);
  const std::string text = damage[0]["text"];
  EXPECT_NE(text.find("not the check interval"), std::string::npos) << text;
  EXPECT_NE(text.find("backend timeout (250 ms)"), std::string::npos) << text;
  EXPECT_NE(text.find("taken out"), std::string::npos) << text;
  EXPECT_TRUE(findings_of(lab.doc, "run-errors").empty());
  for (std::uint16_t port : instance_ports(lab.doc))
    EXPECT_FALSE(listening(port)) << "port " << port;
}

}  // namespace
}  // namespace stampede::lab::testing
