// The generator's --sweep-connections mode: its checks against the rest of the command line and
// its run with the reports (loadgen/sweep.h is the engine; loadgen/report/sweep.h the reports).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/expected.h"
#include "loadgen/options.h"
#include "loadgen/plan.h"
#include "loadgen/runner.h"

namespace stampede::loadgen {

// The steps of --sweep-connections TEXT, or an error (one line, for exit status 2) when TEXT is
// not a step list or the rest of the command line cannot go with a sweep: a rate (--rps: each
// step is closed loop), -c given on the command line (each step sets it), --shard, --save, the
// thresholds, a ws:// URL.
Expected<std::vector<std::uint32_t>> sweep_steps(const std::string& text, const Plan& plan,
                                                 const CliSettings& settings,
                                                 bool connections_given);

// Runs the sweep with progress on stderr (unless --quiet), one line per finished step, then the
// text report (or --json) on stdout and --html. `stop` ends the step in progress and the sweep.
// Returns 0, or 1 when a step could not start or --html could not be written.
int sweep_and_report(Plan& plan, const std::vector<std::uint32_t>& steps,
                     const CliSettings& settings, StopSignal& stop);

}  // namespace stampede::loadgen
