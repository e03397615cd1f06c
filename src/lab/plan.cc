#include "lab/plan.h"

#include <algorithm>

#include "lab/balancer_proc.h"

namespace stampede::lab {
namespace {

std::size_t index_of(const std::vector<InstanceSpec>& instances, const std::string& name) {
  const auto it = std::find_if(instances.begin(), instances.end(),
                               [&](const InstanceSpec& spec) { return spec.name == name; });
  return static_cast<std::size_t>(it - instances.begin());
}

PlanInput plan_input(const LabConfig& config, const std::vector<std::string>& load_strategies) {
  const bool external = config.balancer.kind == BalancerKind::External;
  return {config.scenarios,
          load_strategies,
          external ? std::string() : config.balancer.sticky_strategy,
          config.health_intervals,
          external,
          varies_retries(config.balancer),
          varies_timeout(config.balancer) ? config.backend_timeout : Millis(0)};
}

}  // namespace

Expected<LabPlan> prepare(LabConfig config) {
  apply_defaults(config);
  auto balancer_url = check_config(config);
  if (!balancer_url) return balancer_url.error();
  LabPlan plan;
  plan.balancer_url = std::move(balancer_url).value();
  plan.load_strategies = load_strategies(config.balancer);
  plan.runs = plan_runs(plan_input(config, plan.load_strategies));
  plan.slow = index_of(config.instances, config.slow_instance);
  plan.kill = index_of(config.instances, config.kill_instance);
  plan.limit = index_of(config.instances, config.limit_instance);
  plan.hang = index_of(config.instances, config.hang_instance);
  plan.config = std::move(config);
  return plan;
}

}  // namespace stampede::lab
