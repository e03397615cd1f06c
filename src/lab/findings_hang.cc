// The hang scenario's finding (findings_detail.h): what a stopped instance cost per health
// interval, and what decided it.
#include <fmt/format.h>

#include "lab/findings_detail.h"

namespace stampede::lab::detail {
namespace {

std::string checks_label(const RunRecord& run, const HangTiming& t) {
  if (!run.health_ms) return "checks as configured";
  if (*run.health_ms == 0) return "checks off";
  if (t.health_timeout_ms) {
    return fmt::format("checks every {} ms, timeout {} ms", *run.health_ms, *t.health_timeout_ms);
  }
  return fmt::format("checks every {} ms", *run.health_ms);
}

// One run's part: the failures in the hang and after it, when the balancer took the instance
// out and brought it back.
std::string hang_part(const RunRecord& run, const HangTiming& t) {
  std::string part = fmt::format("{}: {} failed ({})", checks_label(run, t), run.errors,
                                 run.errors ? code_list(run.error_codes) : "none");
  if (t.down_after_stop_s) {
    part += fmt::format(", taken out {:.2f} s after the stop", *t.down_after_stop_s);
  }
  const double margin = std::max(0.1, 2 * t.resolution_s);
  if (t.last_failure_in_hang_s) {
    if (*t.last_failure_in_hang_s >= t.hang_s - margin) {
      part += fmt::format(", {} failing until the resume ({:.2f} s)", t.failed_in_hang, t.hang_s);
    } else {
      // Failures ended before the resume: the balancer stopped sending to the instance. Only a
      // down seen in /lb-stats says it was its health checks (a passive ejection ends them too).
      part += fmt::format(", {} failing, the last {:.2f} s after the stop (then none{})",
                          t.failed_in_hang, *t.last_failure_in_hang_s,
                          t.down_after_stop_s ? ": taken out" : "");
    }
  }
  if (t.last_failure_after_resume_s) {
    part += fmt::format(", {} more up to {:.2f} s after the resume", t.failed_after_resume,
                        *t.last_failure_after_resume_s);
  }
  if (t.up_after_resume_s) {
    part += fmt::format(", back in {:.2f} s after the resume", *t.up_after_resume_s);
  }
  return part;
}

}  // namespace

std::string late_answers(const RunRecord& run) {
  if (run.scenario != ScenarioKind::Hang || !run.hang) return {};
  const InstanceRow* row = run.find(run.hang->hung);
  if (row == nullptr || !row->served || *row->served <= row->by_instance) return {};
  const std::uint64_t late = *row->served - row->by_instance;
  const std::string fate =
      run.errors == 0
          ? "No request failed, so each of them was also served by another instance: it ran "
            "twice (harmless for a GET, not for a request that is not idempotent)."
          : fmt::format(
                "The clients got the balancer's answer for them ({}) or another "
                "instance's, while {} still ran them.",
                code_list(run.error_codes), row->name);
  return fmt::format(
      "{} counted {} more requests than the responses that carried its name ({} by /count, {} "
      "by x-instance): requests that waited in it while it was stopped, which it answered when "
      "continued, after the balancer had given up on them. {}",
      row->name, late, *row->served, row->by_instance, fate);
}

void read_hangs(const std::vector<RunRecord>& runs, Peer peer, std::vector<Finding>& out) {
  std::vector<std::string> parts;
  const RunRecord* first = nullptr;
  bool timed_out = false;
  for (const RunRecord& run : runs) {
    if (run.scenario != ScenarioKind::Hang || !run.hang) continue;
    if (first == nullptr) first = &run;
    parts.push_back(hang_part(run, *run.hang));
    timed_out = timed_out || run.error_codes.count("504") > 0;
  }
  if (first == nullptr) return;
  const HangTiming& t = *first->hang;
  const std::string timeout =
      t.backend_timeout_ms ? fmt::format("the backend timeout ({} ms)", *t.backend_timeout_ms)
                           : std::string("the balancer's backend timeout");
  std::string moral = fmt::format(
      " A stopped instance still accepts connections, so nothing is refused and nothing "
      "fails fast: {}each request sent to it waits for {}, and each health check waits for "
      "the check's timeout before it counts as failed. What decides the damage is those two "
      "timeouts, not the check interval: a short interval with a long check timeout still "
      "leaves the instance in the pool until the checks time out.{}",
      timed_out ? "the failures above are the balancer's 504s; " : "", timeout,
      hang_settings(peer, t.backend_timeout_ms));
  const std::string scope =
      first->strategy.empty() ? std::string("hang") : "hang/" + first->strategy;
  out.push_back(
      note(FindingKind::HangDamage, scope,
           fmt::format("{} stopped (SIGSTOP) {:.1f} s into a {:.1f} s run, continued "
                       "{:.2f} s later. {}.{}",
                       t.hung, t.stop_at_s, t.run_s, t.hang_s, join_parts(parts), moral)));
}

}  // namespace stampede::lab::detail
