// LabPlan: one lab, its configuration parsed and checked once.
//
// prepare() is the one place that checks a LabConfig: it fills the defaults that depend on other
// fields (apply_defaults), checks every range, name, address and the scenario/strategy
// combination (validate, config.h), parses --balancer-url into its host and port, finds each
// scenario's instance in the pool and lays out the runs (plan_runs, scenario.h). run_lab(LabPlan)
// (lab.h) takes the plan as it is and never checks, parses or looks up the configuration's text
// again. Every entry point (the command line, the tests) builds a LabConfig and calls prepare();
// its errors are one line for the user (no "stampede: " prefix), worded in this one place.
//
// prepare() does no I/O: run_lab resolves the balancer's host and starts the processes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "http/url.h"
#include "lab/config.h"
#include "lab/scenario.h"

namespace stampede::lab {

struct LabPlan {
  LabConfig config;           // checked, defaults applied: what the engine and the reports read
  std::vector<RunPlan> runs;  // the runs, in order (plan_runs)
  std::vector<std::string> load_strategies;  // load_strategies(config.balancer)
  // --balancer-url parsed (an http:// URL on a loopback host); nullopt when not given.
  std::optional<http::Url> balancer_url;
  // Each scenario's instance as an index into config.instances (--slow, --kill, --limit,
  // --hang); config.instances.size() when the name is not in the pool, which prepare() refuses
  // whenever that scenario runs.
  std::size_t slow = 0;
  std::size_t kill = 0;
  std::size_t limit = 0;
  std::size_t hang = 0;
};

// Checks `config` and builds its plan. Errors name the option ("--kill: no instance named 'z'").
Expected<LabPlan> prepare(LabConfig config);

}  // namespace stampede::lab
