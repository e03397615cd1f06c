// run_lab(): the whole procedure of the load-balancing guide, as one call. Starts the
// instances, then for each planned run (scenario.h) puts the pool in the state it needs, starts
// the balancer, resets the counters, drives the load in-process, reads the three sources and
// stops the balancer; finally reads the result (findings.h). Every process it starts is stopped
// before it returns, on every path.
#pragma once

#include <optional>
#include <ostream>
#include <vector>

#include "core/expected.h"
#include "lab/config.h"
#include "lab/findings.h"
#include "lab/interrupt.h"
#include "lab/live_runs.h"
#include "lab/plan.h"
#include "lab/record.h"

namespace stampede::lab {

struct LabResult {
  LabConfig config;                    // as run (defaults applied)
  std::string balancer;                // one line naming the balancer
  std::vector<std::string> addresses;  // each instance's host:port, in config order
  std::vector<RunRecord> runs;
  std::optional<SweepRecord> sweep;  // with --sweep-connections
  std::vector<Finding> findings;
  double wall_seconds = 0;

  bool ok() const { return all_checks_hold(findings); }
};

// Runs the lab from its plan (prepare(), plan.h: a LabConfig alone cannot be run), whose runs it
// makes in order. One progress line per step goes to `progress` when it is not null. Errors: an
// instance or balancer that does not start, a balancer that answers nothing, a counter that
// cannot be reset, an interrupt ("interrupted"). With `live`, every generator run it makes is fed
// to it (live_runs.h says under which labels) while it goes, and stays there once ended.
Expected<LabResult> run_lab(const LabPlan& plan, Interrupt& interrupt, std::ostream* progress,
                            LiveRuns* live = nullptr);

}  // namespace stampede::lab
