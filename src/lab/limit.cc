#include "lab/limit.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "lab/findings_detail.h"
#include "lab/sources.h"

namespace stampede::lab {
namespace {

constexpr std::uint32_t kMaxLimit = 1000;

// The instance a limit run capped, or null (a record made without one).
const InstanceRow* capped_row(const RunRecord& run) {
  auto it = std::find_if(run.instances.begin(), run.instances.end(),
                         [](const InstanceRow& row) { return row.max_connections.has_value(); });
  return it == run.instances.end() ? nullptr : &*it;
}

std::string run_scope(const RunRecord& run) {
  std::string scope = run.strategy.empty() ? std::string("as configured") : run.strategy;
  if (run.retries) scope += fmt::format(" retries={}", *run.retries);
  return scope;
}

Finding read_limit_run(const RunRecord& run, const InstanceRow& capped) {
  const Source source = share_source(run);
  const std::vector<double> s = shares(run, source);
  const double fair = 1.0 / static_cast<double>(s.size());
  const auto index = static_cast<std::size_t>(&capped - run.instances.data());
  const std::string who =
      fmt::format("{} (refusing past {} connections) served {} against a fair {}", capped.name,
                  *capped.max_connections, detail::pct(s[index]), detail::pct(fair));
  if (run.errors == 0) {
    return detail::note(
        FindingKind::LimitRoutedAround, run.label(),
        fmt::format("no request failed in {} ({}): the refusals never reached a client; {}.",
                    run.requests, detail::rate(run.rps), who));
  }
  const std::string why =
      run.retries && *run.retries == 0
          ? "without retries a request sent on a refused connection is the client's failure"
          : "the refused attempts were not all re-sent elsewhere";
  return detail::note(FindingKind::LimitFailures, run.label(),
                      fmt::format("{} of {} requests failed ({}): {}; {}.", run.errors,
                                  run.requests, detail::code_list(run.error_codes), why, who));
}

}  // namespace

std::vector<std::optional<std::uint64_t>> read_counts_settled(InstancePool& pool,
                                                              const Interrupt& interrupt) {
  using namespace std::chrono_literals;
  const auto deadline = std::chrono::steady_clock::now() + 2s;
  for (;;) {
    auto counts = pool.read_counts();
    bool settled = true;
    for (std::size_t i = 0; i < counts.size(); ++i)
      settled = settled && (counts[i] || !pool.alive(i));
    if (settled || interrupt.requested() || std::chrono::steady_clock::now() >= deadline) {
      return counts;
    }
    std::this_thread::sleep_for(20ms);  // the balancer's connections close within milliseconds
  }
}

std::vector<RunPlan> plan_limit_runs(const PlanInput& input) {
  using std::chrono::milliseconds;
  std::vector<RunPlan> runs;
  const std::optional<milliseconds> off =
      input.fixed_balancer ? std::nullopt : std::optional(milliseconds(0));
  for (const std::string& strategy : input.load_strategies) {
    if (!input.varies_retries) {
      runs.push_back({ScenarioKind::Limit, Pool::Limit, strategy, off, std::nullopt, std::nullopt});
      continue;
    }
    for (int retries : kLimitRetries)
      runs.push_back({ScenarioKind::Limit, Pool::Limit, strategy, off, retries, std::nullopt});
  }
  return runs;
}

Expected<void> validate_limit(const LabConfig& config) {
  if (std::find(config.scenarios.begin(), config.scenarios.end(), ScenarioKind::Limit) ==
      config.scenarios.end()) {
    return {};
  }
  const bool known =
      std::any_of(config.instances.begin(), config.instances.end(),
                  [&](const InstanceSpec& spec) { return spec.name == config.limit_instance; });
  if (!known) {
    return make_error(fmt::format("--limit: no instance named '{}'", config.limit_instance));
  }
  if (config.limit_connections < 1 || config.limit_connections > kMaxLimit) {
    return make_error(fmt::format("--limit: the cap must be 1 to {} connections", kMaxLimit));
  }
  return {};
}

void read_limits(const std::vector<RunRecord>& runs, std::vector<Finding>& out, Peer peer) {
  std::vector<std::string> around, failed;
  std::string capped_name;
  for (const RunRecord& run : runs) {
    if (run.scenario != ScenarioKind::Limit) continue;
    const InstanceRow* capped = capped_row(run);
    if (capped == nullptr) continue;
    capped_name = capped->name;
    out.push_back(read_limit_run(run, *capped));
    (run.errors == 0 ? around : failed)
        .push_back(run.errors == 0 ? run_scope(run)
                                   : fmt::format("{} ({} failed)", run_scope(run), run.errors));
  }
  if (around.empty() && failed.empty()) return;
  const auto list = [](const std::vector<std::string>& v) {
    return v.empty() ? std::string("none") : fmt::format("{}", fmt::join(v, ", "));
  };
  const std::string meaning =
      failed.empty() ? "No refusal reached a client: each refused attempt went to another instance."
                     : "A request written to a connection the instance then reset fails unless the "
                       "balancer re-sends it; a reset seen before the request is written is "
                       "re-routed.";
  out.push_back(detail::note(
      FindingKind::LimitSummary, "limit",
      fmt::format("with {} refusing past its cap, routed around the "
                  "refusals: {}; passed them to clients: {}. {}{}",
                  capped_name, list(around), list(failed), meaning, limit_settings(peer))));
}

}  // namespace stampede::lab
