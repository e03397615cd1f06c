#include "lab/config.h"

#include <arpa/inet.h>

#include <algorithm>

#include <fmt/format.h>

#include "balancer/config.h"
#include "http/url.h"
#include "lab/h2.h"
#include "lab/limit.h"

namespace stampede::lab {
namespace {

constexpr std::size_t kMaxInstances = 26;
constexpr std::uint32_t kMaxConnections = 10'000;
constexpr std::uint32_t kMaxSessions = 64;
constexpr Millis kMaxDelay{10'000};
constexpr Millis kMaxHealth{60'000};
constexpr auto kMaxDuration = std::chrono::minutes(10);

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 32) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
  });
}

// Names as balancers spell them ("rr", "leastconn", "hdr(x-session)", "random(2)"): nothing
// a shell or an HTML report would read as syntax, no space, no control byte.
constexpr const char* kStrategyRule =
    "a strategy is 1 to 64 letters, digits and - _ . : = ( ) only";

bool valid_strategy(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("-_.:=()").find(c) != std::string_view::npos;
  });
}

bool names_instance(const LabConfig& config, const std::string& name) {
  return std::any_of(config.instances.begin(), config.instances.end(),
                     [&](const InstanceSpec& i) { return i.name == name; });
}

bool wants(const LabConfig& config, ScenarioKind kind) {
  return std::find(config.scenarios.begin(), config.scenarios.end(), kind) !=
         config.scenarios.end();
}

Expected<void> validate_instances(const LabConfig& config) {
  for (std::size_t i = 0; i < config.instances.size(); ++i) {
    const InstanceSpec& spec = config.instances[i];
    if (!valid_name(spec.name)) {
      return make_error(fmt::format(
          "instance name '{}': use 1 to 32 letters, digits, '-', '_' or '.'", spec.name));
    }
    if (!is_loopback_host(spec.host)) {
      return make_error(fmt::format(
          "instance {}: '{}' is not a loopback address (the lab only uses 127.0.0.1 and ::1)",
          spec.name, spec.host));
    }
    if (spec.delay > kMaxDelay || spec.delay.count() < 0) {
      return make_error(fmt::format("--delay {}: at most 10000 ms", spec.name));
    }
    for (std::size_t j = 0; j < i; ++j) {
      const InstanceSpec& other = config.instances[j];
      if (other.name == spec.name) {
        return make_error(fmt::format("instance '{}' is given twice", spec.name));
      }
      if (spec.port != 0 && other.port == spec.port) {
        return make_error(fmt::format("instances {} and {} have the same port {}", other.name,
                                      spec.name, spec.port));
      }
    }
  }
  if (config.instances.size() < 2 || config.instances.size() > kMaxInstances) {
    return make_error(fmt::format("the lab needs 2 to {} instances, got {}", kMaxInstances,
                                  config.instances.size()));
  }
  return {};
}

// --balancer-url, parsed: an http:// URL on a loopback host; nullopt when not given.
Expected<std::optional<http::Url>> parse_balancer_url(const std::string& text) {
  if (text.empty()) return std::optional<http::Url>();
  auto url = http::parse_url(text);
  if (!url) return make_error("--balancer-url: " + url.error().message);
  if (url->scheme != http::Scheme::Http) return make_error("--balancer-url: only http:// URLs");
  if (!is_loopback_host(url->host)) {
    return make_error(fmt::format(
        "--balancer-url: '{}' is not a loopback address (the lab only targets loopback)",
        url->host));
  }
  return std::optional<http::Url>(std::move(url).value());
}

Expected<void> validate_balancer(const LabConfig& config) {
  const BalancerSpec& b = config.balancer;
  if (b.kind == BalancerKind::Command) {
    if (b.command.empty()) return make_error("--balancer-cmd: empty command");
    if (b.url.empty() && b.command.find("{port}") == std::string::npos) {
      return make_error(
          "--balancer-cmd: say where the balancer listens: put {port} in CMD, or give "
          "--balancer-url");
    }
  }
  if (b.start_timeout.count() <= 0 || b.start_timeout > kMaxDuration) {
    return make_error("--start-timeout: above 0 and at most 10m");
  }
  if (b.kind == BalancerKind::External) return {};
  if (b.strategies.empty()) return make_error("--strategies: no strategy");
  // Strategy names go into a balancer's command line ({strategy}) and the reports.
  if (!valid_strategy(b.sticky_strategy)) {
    return make_error(std::string("--sticky-strategy: ") + kStrategyRule);
  }
  for (std::size_t i = 0; i < b.strategies.size(); ++i) {
    const std::string& s = b.strategies[i];
    if (s.empty()) return make_error("--strategies: empty strategy name");
    if (!valid_strategy(s)) return make_error(std::string("--strategies: ") + kStrategyRule);
    if (std::find(b.strategies.begin(), b.strategies.begin() + i, s) != b.strategies.begin() + i)
      return make_error(fmt::format("--strategies: '{}' is given twice", s));
    if (b.kind == BalancerKind::BuiltIn) {
      if (auto parsed = balancer::parse_strategy(s); !parsed) {
        return make_error("--strategies: " + parsed.error().message);
      }
    }
  }
  const bool has_sticky =
      std::find(b.strategies.begin(), b.strategies.end(), b.sticky_strategy) != b.strategies.end();
  if (wants(config, ScenarioKind::Sticky) && !has_sticky) {
    return make_error(
        fmt::format("the sticky scenario needs the sticky strategy '{}' in --strategies (or set "
                    "--sticky-strategy, or leave sticky out of --scenarios)",
                    b.sticky_strategy));
  }
  const bool needs_load_strategy =
      wants(config, ScenarioKind::Even) || wants(config, ScenarioKind::Slow) ||
      wants(config, ScenarioKind::Outage) || wants(config, ScenarioKind::Limit) ||
      wants(config, ScenarioKind::Hang) || wants(config, ScenarioKind::H2);
  if (needs_load_strategy && load_strategies(b).empty()) {
    return make_error(
        "even, slow, outage, limit, hang and h2 need a strategy other than the sticky one in "
        "--strategies");
  }
  return {};
}

// The hang scenario's instance and times: the hang ends inside the run.
Expected<void> validate_hang(const LabConfig& config) {
  if (!wants(config, ScenarioKind::Hang)) return {};
  if (!names_instance(config, config.hang_instance)) {
    return make_error(fmt::format("--hang: no instance named '{}'", config.hang_instance));
  }
  if (config.hang_for.count() <= 0 ||
      config.kill_after + config.hang_for >= config.outage_duration) {
    return make_error(
        "--hang-for must be above 0 and end before --outage-duration (it starts at "
        "--kill-after)");
  }
  if (config.backend_timeout.count() <= 0 || config.backend_timeout > kMaxHealth) {
    return make_error("--backend-timeout: 1 to 60000 ms");
  }
  return {};
}

Expected<void> validate_scenarios(const LabConfig& config) {
  if (config.scenarios.empty() && config.sweep.empty()) {
    return make_error("--scenarios: no scenario");
  }
  if (wants(config, ScenarioKind::Slow) && !names_instance(config, config.slow_instance)) {
    return make_error(fmt::format("--slow: no instance named '{}'", config.slow_instance));
  }
  if (config.slow_delay.count() <= 0 || config.slow_delay > kMaxDelay) {
    return make_error("--slow: the delay must be 1 to 10000 ms");
  }
  if (wants(config, ScenarioKind::Outage) && !names_instance(config, config.kill_instance)) {
    return make_error(fmt::format("--kill: no instance named '{}'", config.kill_instance));
  }
  if (config.sessions < 1 || config.sessions > kMaxSessions) {
    return make_error(fmt::format("--sessions: 1 to {}", kMaxSessions));
  }
  if (config.session_requests < 1 || config.session_requests > 1'000'000) {
    return make_error("--session-requests: 1 to 1000000");
  }
  if (auto r = validate_hang(config); !r) return r;
  if ((wants(config, ScenarioKind::Outage) || wants(config, ScenarioKind::Hang)) &&
      config.health_intervals.empty()) {
    return make_error("--health-intervals: no interval");
  }
  for (Millis h : config.health_intervals) {
    if (h.count() < 0 || h > kMaxHealth) return make_error("--health-intervals: 0 to 60000 ms");
  }
  if (config.kill_after.count() <= 0 || config.kill_after >= config.outage_duration ||
      config.outage_duration > kMaxDuration) {
    return make_error("--kill-after must be above 0 and below --outage-duration (at most 10m)");
  }
  return {};
}

}  // namespace

std::vector<InstanceSpec> default_instances(std::size_t count) {
  std::vector<InstanceSpec> out;
  for (std::size_t i = 0; i < count && i < kMaxInstances; ++i) {
    InstanceSpec spec;
    spec.name = std::string(1, static_cast<char>('a' + i));
    out.push_back(spec);
  }
  return out;
}

void apply_defaults(LabConfig& config) {
  if (config.instances.empty()) return;
  if (config.slow_instance.empty()) config.slow_instance = config.instances.back().name;
  if (config.kill_instance.empty()) config.kill_instance = config.instances.back().name;
  if (config.limit_instance.empty()) config.limit_instance = config.instances.back().name;
  if (config.hang_instance.empty()) config.hang_instance = config.instances.back().name;
  if (config.stampede_path.empty()) config.stampede_path = "/proc/self/exe";
}

bool is_loopback_host(std::string_view host) {
  if (host == "localhost") return true;
  const std::string text(host);
  in_addr v4{};
  if (inet_pton(AF_INET, text.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, text.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

std::vector<std::string> load_strategies(const BalancerSpec& balancer) {
  if (balancer.kind == BalancerKind::External) return {""};
  std::vector<std::string> out;
  for (const std::string& s : balancer.strategies)
    if (s != balancer.sticky_strategy) out.push_back(s);
  return out;
}

Expected<std::optional<http::Url>> check_config(const LabConfig& config) {
  if (auto r = validate_instances(config); !r) return r.error();
  if (auto r = validate_scenarios(config); !r) return r.error();
  auto balancer_url = parse_balancer_url(config.balancer.url);
  if (!balancer_url) return balancer_url.error();
  if (auto r = validate_balancer(config); !r) return r.error();
  if (auto r = validate_limit(config); !r) return r.error();
  if (auto r = validate_h2(config); !r) return r.error();
  const LoadSettings& load = config.load;
  if (load.connections < 1 || load.connections > kMaxConnections) {
    return make_error(fmt::format("-c/--connections: 1 to {} connections", kMaxConnections));
  }
  if (load.duration.count() <= 0 || load.duration > kMaxDuration) {
    return make_error("-t/--duration: above 0 and at most 10m");
  }
  if (load.cores < 1 || load.cores > 64) return make_error("--cores: 1 to 64");
  return balancer_url;
}

Expected<void> validate(const LabConfig& config) {
  auto checked = check_config(config);
  if (!checked) return checked.error();
  return {};
}

}  // namespace stampede::lab
