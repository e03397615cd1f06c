#include "lab/scenario.h"

#include <algorithm>

#include "core/enum_names.h"
#include "lab/h2.h"
#include "lab/limit.h"

namespace stampede::lab {
namespace {

// Every scenario with its name, in the canonical order (the enum's): all_scenarios(), the names,
// the parsing and its error message read this one list. A new kind goes at the end of both.
constexpr EnumName<ScenarioKind> kScenarios[] = {
    {ScenarioKind::Even, "even"},     {ScenarioKind::Slow, "slow"},
    {ScenarioKind::Sticky, "sticky"}, {ScenarioKind::Outage, "outage"},
    {ScenarioKind::Limit, "limit"},   {ScenarioKind::Hang, "hang"},
    {ScenarioKind::H2, "h2"}};
static_assert(in_enum_order(kScenarios));

}  // namespace

std::vector<ScenarioKind> all_scenarios() {
  std::vector<ScenarioKind> out;
  for (const EnumName<ScenarioKind>& s : kScenarios)
    out.push_back(s.value);
  return out;
}

std::vector<ScenarioKind> default_scenarios() {
  return {ScenarioKind::Even, ScenarioKind::Slow, ScenarioKind::Sticky, ScenarioKind::Outage};
}

std::string_view scenario_name(ScenarioKind kind) {
  return name_of(kScenarios, kind);
}

Expected<std::vector<ScenarioKind>> parse_scenarios(std::string_view text) {
  std::vector<ScenarioKind> chosen;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view name = text.substr(start, comma - start);
    const std::optional<ScenarioKind> kind = parse_name(kScenarios, name);
    if (!kind) {
      return make_error("--scenarios: unknown scenario '" + std::string(name) + "' (" +
                        joined_names(kScenarios, ", ", ", ") + ")");
    }
    if (std::find(chosen.begin(), chosen.end(), *kind) != chosen.end()) {
      return make_error("--scenarios: '" + std::string(name) + "' is given twice");
    }
    chosen.push_back(*kind);
    start = comma + 1;
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

namespace {

// The hang scenario's runs: like the outage's, each with the backend timeout.
void plan_hang_runs(const PlanInput& input, std::vector<RunPlan>& runs) {
  if (input.load_strategies.empty()) return;
  const std::string& strategy = input.load_strategies.front();
  if (input.fixed_balancer) {
    runs.push_back(
        {ScenarioKind::Hang, Pool::Even, strategy, std::nullopt, std::nullopt, std::nullopt});
    return;
  }
  // A balancer that does not take the timeout ({timeout}) runs with its own: none is claimed.
  const std::optional<std::chrono::milliseconds> timeout =
      input.backend_timeout.count() > 0 ? std::optional(input.backend_timeout) : std::nullopt;
  for (std::chrono::milliseconds health : input.health_intervals)
    runs.push_back({ScenarioKind::Hang, Pool::Even, strategy, health, std::nullopt, timeout});
}

}  // namespace

std::vector<RunPlan> plan_runs(const PlanInput& input) {
  using std::chrono::milliseconds;
  std::vector<RunPlan> runs;
  const auto wants = [&](ScenarioKind k) {
    return std::find(input.scenarios.begin(), input.scenarios.end(), k) != input.scenarios.end();
  };
  const std::optional<milliseconds> off =
      input.fixed_balancer ? std::nullopt : std::optional(milliseconds(0));
  for (ScenarioKind kind : {ScenarioKind::Even, ScenarioKind::Slow}) {
    if (!wants(kind)) continue;
    const Pool pool = kind == ScenarioKind::Slow ? Pool::Slow : Pool::Even;
    for (const std::string& strategy : input.load_strategies)
      runs.push_back({kind, pool, strategy, off, std::nullopt, std::nullopt});
  }
  if (wants(ScenarioKind::Sticky)) {
    runs.push_back(
        {ScenarioKind::Sticky, Pool::Even, input.sticky_strategy, off, std::nullopt, std::nullopt});
  }
  if (wants(ScenarioKind::Outage) && !input.load_strategies.empty()) {
    const std::string& strategy = input.load_strategies.front();
    if (input.fixed_balancer) {
      runs.push_back(
          {ScenarioKind::Outage, Pool::Even, strategy, std::nullopt, std::nullopt, std::nullopt});
    } else {
      for (milliseconds health : input.health_intervals)
        runs.push_back(
            {ScenarioKind::Outage, Pool::Even, strategy, health, std::nullopt, std::nullopt});
    }
  }
  if (wants(ScenarioKind::Limit)) {
    for (RunPlan& run : plan_limit_runs(input))
      runs.push_back(std::move(run));
  }
  if (wants(ScenarioKind::Hang)) plan_hang_runs(input, runs);
  if (wants(ScenarioKind::H2)) plan_h2_runs(input, runs);
  return runs;
}

}  // namespace stampede::lab
