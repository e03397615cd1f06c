// Hand-made lab records for the unit tests (the guide's figures, or any others), and the
// findings of the kinds a test looks at.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>

#include "lab/findings.h"
#include "lab/record.h"

namespace stampede::lab::testing {

struct Row {
  std::string name;
  std::int64_t delay_ms;
  std::uint64_t count;  // the same in the three sources
};

// A run whose three sources agree on `rows`, with `errors` failed requests on top.
inline RunRecord make_run(ScenarioKind kind, std::string strategy, const std::vector<Row>& rows,
                          double rps, std::uint64_t errors = 0) {
  RunRecord run;
  run.scenario = kind;
  run.strategy = std::move(strategy);
  run.backend_header = true;
  run.rps = rps;
  run.errors = errors;
  for (const Row& r : rows) {
    InstanceRow& row = run.instances.emplace_back();
    row.name = r.name;
    row.delay_ms = r.delay_ms;
    row.served = r.count;
    row.by_instance = r.count;
    row.by_backend = r.count;
    row.direct_p50_ms = r.delay_ms > 0 ? static_cast<double>(r.delay_ms) + 0.2 : 0.1;
    run.requests += r.count;
  }
  run.requests += errors;
  if (errors > 0) run.error_codes["502"] = errors;
  return run;
}

// The guide's outage: c killed 2 s into a 6 s run of rr at `health_ms`.
inline RunRecord outage_run(std::int64_t health_ms, std::uint64_t total, std::uint64_t failed,
                            double last_failure_s) {
  const std::uint64_t served = total - failed;
  RunRecord run = make_run(ScenarioKind::Outage, "rr",
                           {{"a", 0, served / 2}, {"b", 0, served - served / 2}, {"c", 0, 0}},
                           static_cast<double>(total) / 6.0, failed);
  run.health_ms = health_ms;
  run.instances[2].killed = true;
  run.instances[2].served.reset();
  run.instances[2].by_backend = failed;  // the balancer's 502s name the dead backend
  OutageTiming t;
  t.killed = "c";
  t.kill_at_s = 2.0;
  t.run_s = 6.0;
  t.resolution_s = 0.02;
  if (failed > 0) t.last_failure_after_kill_s = last_failure_s;
  run.outage = t;
  return run;
}

// The hang of the guide's figures: c stopped 1 s into a 4 s run for 2 s (20 ms resolution, the
// balancer's backend timeout 1 s).
inline HangTiming guide_hang() {
  HangTiming t;
  t.hung = "c";
  t.stop_at_s = 1.0;
  t.hang_s = 2.0;
  t.run_s = t.stop_at_s + t.hang_s + 1.0;  // 4 s: 1 s before the stop, 1 s after the resume
  t.resolution_s = 0.02;
  t.backend_timeout_ms = 1000;
  return t;
}

// The findings of `all` whose kind is one of `kinds`, in their order.
inline std::vector<Finding> of_kind(const std::vector<Finding>& all,
                                    std::initializer_list<FindingKind> kinds) {
  std::vector<Finding> out;
  std::copy_if(all.begin(), all.end(), std::back_inserter(out), [kinds](const Finding& f) {
    return std::find(kinds.begin(), kinds.end(), f.kind) != kinds.end();
  });
  return out;
}
inline std::vector<Finding> of_kind(const std::vector<Finding>& all, FindingKind kind) {
  return of_kind(all, {kind});
}

}  // namespace stampede::lab::testing
