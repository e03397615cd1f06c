#include "lab/h2.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "lab/findings_detail.h"
#include "lab/runs.h"
#include "lab/sources.h"

namespace stampede::lab {

std::uint32_t h2_connections(std::size_t instances) {
  return instances > 2 ? 2 : 1;
}

void plan_h2_runs(const PlanInput& input, std::vector<RunPlan>& runs) {
  if (input.load_strategies.empty()) return;
  const std::optional<std::chrono::milliseconds> off =
      input.fixed_balancer ? std::nullopt : std::optional(std::chrono::milliseconds(0));
  runs.push_back({ScenarioKind::H2, Pool::Even, input.load_strategies.front(), off, std::nullopt,
                  std::nullopt});
}

Expected<void> validate_h2(const LabConfig& config) {
  const bool runs = std::find(config.scenarios.begin(), config.scenarios.end(), ScenarioKind::H2) !=
                    config.scenarios.end();
  if (!runs) {
    if (!config.h2_connections && !config.h2_streams) return {};
    return make_error(
        "--h2-connections and --h2-streams set the h2 scenario's load: add h2 to --scenarios");
  }
  const std::size_t instances = config.instances.size();
  const H2Load load = h2_load_of(config);
  if (load.connections < 1 || load.connections >= instances) {
    return make_error(fmt::format(
        "--h2-connections: 1 to {} with {} instances: the h2 scenario needs fewer connections "
        "than instances, or a balancer of whole connections could reach every instance and look "
        "like one of requests",
        instances - 1, instances));
  }
  if (load.streams < 1 || load.streams > loadgen::kMaxStreams) {
    return make_error(
        fmt::format("--h2-streams: 1 to {} streams per connection", loadgen::kMaxStreams));
  }
  return {};
}

H2Load h2_load_of(const LabConfig& config) {
  return {config.h2_connections.value_or(h2_connections(config.instances.size())),
          config.h2_streams.value_or(kH2Streams)};
}

loadgen::Config h2_load_config(const LabConfig& lab, const std::string& url) {
  const H2Load load = h2_load_of(lab);
  loadgen::Config config = make_load_config(lab.load, url);
  config.http2 = true;
  config.streams = load.streams;
  config.concurrency = load.connections;
  config.cores = 1;
  return config;
}

void read_h2(const RunRecord& run, std::vector<Finding>& out) {
  if (run.scenario != ScenarioKind::H2 || !run.h2 || run.instances.empty()) return;
  const Source source = share_source(run);
  const std::vector<double> s = shares(run, source);
  const auto n = s.size();
  const std::uint32_t c = run.h2->connections;
  const double fair = 1.0 / static_cast<double>(n);
  const auto used =
      static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](double v) { return v > 0; }));
  if (used == 0) return;  // nothing was served: the run's errors say why
  const bool even = std::all_of(
      s.begin(), s.end(), [&](double v) { return std::abs(v - fair) <= kEvenTolerance * fair; });
  const std::string load =
      fmt::format("{} HTTP/2 connection{} x {} streams", c, c == 1 ? "" : "s", run.h2->streams);
  const std::string figures = fmt::format("{} ({}), {}", detail::share_list(run, source),
                                          detail::spread(run, source), detail::rate(run.rps));
  if (even) {
    out.push_back(detail::note(
        FindingKind::H2PerRequest, run.label(),
        fmt::format("requests are balanced one by one (HTTP/2 streams spread over {} instances): "
                    "{} reached all {}, each near 1/{}: {}. A connection-level balancer could "
                    "have used at most {}.",
                    n, load, n, n, figures, c)));
  } else if (used <= c && used < n) {
    std::vector<std::string> idle;
    for (const InstanceRow& row : run.instances)
      if (count_of(row, source) == 0) idle.push_back(row.name);
    out.push_back(detail::note(
        FindingKind::H2FollowsConnections, run.label(),
        fmt::format("shares follow connections: this balancer balances connections, not "
                    "requests. {} reached {} of {} instances ({} served nothing while up): {}. "
                    "Every request of a connection went where the connection went. With a few "
                    "long-lived HTTP/2 or gRPC connections, balance per request (an HTTP/2-aware "
                    "balancer: HAProxy mode http) or open many more connections than instances.",
                    load, used, n, fmt::join(idle, ", "), figures)));
  } else {
    out.push_back(detail::note(
        FindingKind::H2Uneven, run.label(),
        fmt::format("uneven share over {} instances, more than {} could reach if whole "
                    "connections were balanced: requests are spread one by one, not evenly: {}.",
                    used, load, figures)));
  }
}

}  // namespace stampede::lab
