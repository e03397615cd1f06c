// --find-max, the generator's capacity search (loadgen/capacity.h), on its command line: its
// options, their checks against the rest of the command line, and the run with its reports.
// Kept apart from generator.cc, which only declares the options and dispatches.
#pragma once

#include <optional>
#include <string>

#include "core/expected.h"
#include "loadgen/capacity.h"
#include "loadgen/options.h"
#include "loadgen/plan.h"

namespace CLI {
class App;
}  // namespace CLI

namespace stampede::loadgen {

// What CLI11 fills, as given.
struct FindMaxTexts {
  bool find_max = false;
  std::optional<std::string> start_rps, step_duration, resolution, cool_down;
};

// Declares --find-max, --start-rps, --step-duration, --resolution and --cool-down on `app`.
void add_find_max_options(CLI::App& app, FindMaxTexts& texts);

// The search's parameters when --find-max was given, nullopt when it was not. Errors (one line,
// for exit status 2): a value out of range, --find-max's own options without it, and what
// contradicts it in `options` (no --max-p99, or -n, -t, --rps, --ramp, --min-rps, --pipeline,
// --shard, --start-at, --save).
Expected<std::optional<CapacityParams>> to_capacity_params(const FindMaxTexts& texts,
                                                           const Options& options);

// After prepare(): --find-max does not take a WebSocket URL.
Expected<void> check_capacity_plan(const Plan& plan);

// Runs the search with progress on stderr (unless --quiet), `stop` ending it after the step in
// progress (the caller turns Ctrl-C into it), prints the text report (or --json) on stdout and
// writes --html. Returns 0 when a capacity was found, 3 when the
// first step already failed the limits, 1 when the search could not finish (the generator was
// the limit, an interrupt, a failed start, --html not written).
int run_find_max(Plan& plan, const CliSettings& settings, const CapacityParams& params,
                 StopSignal& stop);

}  // namespace stampede::loadgen
