#include "lab/record.h"

#include <fmt/format.h>

namespace stampede::lab {

std::string RunRecord::label() const {
  std::string out(scenario_name(scenario));
  if (!strategy.empty()) out += "/" + strategy;
  if ((scenario == ScenarioKind::Outage || scenario == ScenarioKind::Hang) && health_ms) {
    out += *health_ms == 0 ? std::string("/health=off") : fmt::format("/health={}ms", *health_ms);
  }
  if (retries) out += fmt::format("/retries={}", *retries);
  return out;
}

const InstanceRow* RunRecord::find(const std::string& name) const {
  for (const InstanceRow& row : instances)
    if (row.name == name) return &row;
  return nullptr;
}

}  // namespace stampede::lab
