// Scenarios as data: what each one changes and which runs a lab makes (the plan), so that the
// orchestration (lab.cc) is one loop over runs and the plan can be tested without processes.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"

namespace stampede::lab {

enum class ScenarioKind { Even, Slow, Sticky, Outage, Limit, Hang, H2 };

// Every scenario, in the canonical order; default_scenarios(): those a lab runs unless told
// (limit is asked for by name).
std::vector<ScenarioKind> all_scenarios();
// What runs without --scenarios: even, slow, sticky, outage (limit and hang only when asked for:
// their runs wait out real time and would take the default lab past a minute; h2 too: it needs
// a balancer that takes HTTP/2 from its clients, which a command may not be, h2.h).
std::vector<ScenarioKind> default_scenarios();
// "even", "slow", "sticky", "outage", "limit", "hang", "h2"
std::string_view scenario_name(ScenarioKind kind);
// "even,slow" -> {Even, Slow}; duplicates, unknown names and an empty list are errors. The
// result is in the canonical order (even, slow, sticky, outage, limit, hang, h2)
// whatever the input order.
Expected<std::vector<ScenarioKind>> parse_scenarios(std::string_view text);

// The state of the pool a run needs: identical instances (their own --delay only), one
// instance slowed down, or one at its connection limit (limit.h).
enum class Pool { Even, Slow, Limit };

// One run of the lab: a balancer (re)started with `strategy` and `health`, counters reset,
// load, counters read.
struct RunPlan {
  ScenarioKind scenario = ScenarioKind::Even;
  Pool pool = Pool::Even;
  std::string strategy;  // empty: the external balancer as it is configured
  // The health-check interval the balancer is started with (0: off); nullopt for an external
  // balancer, whose checks are whatever it was configured with.
  std::optional<std::chrono::milliseconds> health;
  // The built-in balancer's --retries for this run; nullopt: its default (or as configured).
  std::optional<int> retries;
  // The balancer's backend timeout for this run (hang); nullopt: its own default.
  std::optional<std::chrono::milliseconds> backend_timeout;
};

struct PlanInput {
  std::vector<ScenarioKind> scenarios;
  std::vector<std::string> load_strategies;  // even, slow; the first is used by outage
  std::string sticky_strategy;               // empty: external balancer
  std::vector<std::chrono::milliseconds> health_intervals;
  bool fixed_balancer = false;  // --balancer-url only: one run per scenario, health as it is
  // The limit runs vary the balancer's retries: the built-in one's --retries, or {retries} in a
  // --balancer-cmd that has it (limit.h).
  bool varies_retries = true;
  // hang: the balancer's backend timeout; 0: the balancer does not take one (its own applies).
  std::chrono::milliseconds backend_timeout{0};
};

// The runs in order: even per strategy, slow per strategy, sticky, outage per health interval,
// limit (limit.h), hang per health interval (with the backend timeout), h2 (h2.h).
std::vector<RunPlan> plan_runs(const PlanInput& input);

}  // namespace stampede::lab
