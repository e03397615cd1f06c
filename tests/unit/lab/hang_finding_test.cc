// The hang-damage finding's words for each run: failures to the resume, failures that ended
// before it (taken out by the checks as /lb-stats showed, or not shown), and the moral.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lab/findings.h"
#include "lab_records.h"
#include "support/text_checks.h"

namespace stampede::lab {
namespace {

using testing::make_run;

// c stopped 1 s into a 4 s run for 2 s, at `health_ms`, with `failed` 504s.
RunRecord hang_run(std::int64_t health_ms, std::uint64_t failed, double last_failure_s) {
  RunRecord run = make_run(ScenarioKind::Hang, "rr", {{"a", 0, 500}, {"b", 0, 500}, {"c", 0, 90}},
                           275.0, failed);
  run.error_codes = {{"504", failed}};
  run.health_ms = health_ms;
  HangTiming t = testing::guide_hang();
  t.failed_in_hang = failed;
  t.last_failure_in_hang_s = last_failure_s;
  run.hang = t;
  return run;
}

std::string hang_text(const std::vector<RunRecord>& runs) {
  for (const Finding& f : read_runs(runs)) {
    if (f.kind == FindingKind::HangDamage) return f.text;
  }
  return {};
}

TEST(LabHangFinding, SaysTakenOutOnlyWhenTheBalancerShowedIt) {
  RunRecord passive = hang_run(0, 12, 1.10);  // failures ended, no down seen
  RunRecord checked = hang_run(200, 12, 1.10);
  checked.hang->down_after_stop_s = 0.80;
  RunRecord through = hang_run(1000, 40, 1.99);  // failing until the resume
  const std::string text = hang_text({passive, checked, through});
  ASSERT_FALSE(text.empty());
  EXPECT_TRUE(stampede::testing::contains_all(
      text, {"12 failing, the last 1.10 s after the stop (then none); ",
             "taken out 0.80 s after the stop, 12 failing, the last 1.10 s after the "
             "stop (then none: taken out)",
             "40 failing until the resume (2.00 s)", "the backend timeout (1000 ms)"}));
  EXPECT_TRUE(stampede::testing::contains_none(text, {"detected"}));
}

}  // namespace
}  // namespace stampede::lab
