#include "cli/lab_options.h"

#include <tuple>

#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include "cli/command_line.h"
#include "core/units.h"
#include "lab/balancer_proc.h"
#include "loadgen/sweep.h"

namespace stampede::lab {
namespace {

using std::chrono::milliseconds;

// The options as typed: CLI11 only splits, the converters below check and convert.
struct Raw {
  std::string instances, connections, duration, cores, slow, sessions, session_requests;
  std::string health_intervals, outage_duration, kill_after, start_timeout, scenarios;
  std::string strategies, rps;
  std::string hang_for, backend_timeout;   // the hang scenario (convert_load)
  std::string sweep;                       // --sweep-connections (convert_sweep)
  std::string limit;                       // --limit NAME[=N] (convert_limit)
  std::string h2_connections, h2_streams;  // the h2 scenario's load (convert_h2)
  std::vector<std::string> instance_specs, delays;
  loadgen::MetricsTexts metrics;  // --metrics-listen, --metrics-linger
};

void declare(CLI::App& app, Raw& raw, LabConfig& c) {
  app.add_option("-n,--instances", raw.instances,
                 "Instances a, b, c, ... on free ports; default 3");
  app.add_option("--instance", raw.instance_specs,
                 "NAME=HOST:PORT, repeatable: the pool on given ports (port 0: any free); "
                 "default none: -n instances");
  app.add_option("--delay", raw.delays,
                 "NAME=MS, repeatable: an instance's delay throughout; default none");
  app.add_option("--balancer-url", c.balancer.url,
                 "Send load to this balancer (already running, or where --balancer-cmd listens); "
                 "default: the built-in one, started per run");
  app.add_option("--balancer-cmd", c.balancer.command,
                 "Shell command the lab starts per run ({strategy} {health} {port} {instances} "
                 "{addr:NAME} {port:NAME} {dir}); default: stampede balance");
  app.add_option("--strategies", raw.strategies, "Strategies under test; default rr,least,sticky");
  app.add_option("--sticky-strategy", c.balancer.sticky_strategy,
                 "The strategy that keeps sessions; default sticky");
  app.add_option(
      "--scenarios", raw.scenarios,
      "Scenarios to run (even,slow,sticky,outage,limit,hang,h2); default even,slow,sticky,outage");
  app.add_option("-c,--connections", raw.connections, "Connections of the load; default 12");
  app.add_option("-t,--duration", raw.duration,
                 "Length of each even/slow run, s (or 500ms); default 3s");
  app.add_option("--cores", raw.cores, "Generator threads; default 1");
  app.add_option("--rps", raw.rps,
                 "Open-loop load at this many requests per second; default none: closed loop");
  app.add_option("--slow", raw.slow,
                 "NAME[=MS]: the slow scenario's instance and its delay; default the last, 50 ms");
  app.add_option("--limit", raw.limit,
                 "NAME[=N]: the limit scenario's instance and its connection cap; default the "
                 "last, 2");
  app.add_option("--h2-connections", raw.h2_connections,
                 "HTTP/2 connections of the h2 scenario, fewer than the instances; default 2 (1 "
                 "for a pool of 2)");
  app.add_option("--h2-streams", raw.h2_streams,
                 "Streams per HTTP/2 connection of the h2 scenario, 1 to 1000; default 10");
  app.add_option("--sessions", raw.sessions, "Sticky sessions; default 4");
  app.add_option("--session-requests", raw.session_requests, "Requests per session; default 300");
  app.add_option("--kill", c.kill_instance, "The instance the outage kills; default the last");
  app.add_option("--health-intervals", raw.health_intervals,
                 "Outage health intervals, ms; default 0,1000,200");
  app.add_option("--outage-duration", raw.outage_duration,
                 "Length of an outage run, s; default 6s");
  app.add_option("--kill-after", raw.kill_after,
                 "When the outage kills, s into the run; default 2s");
  app.add_option("--hang", c.hang_instance, "The instance the hang stops; default the last");
  app.add_option("--hang-for", raw.hang_for,
                 "How long the hang keeps it stopped (from --kill-after), s; default 2s");
  app.add_option("--backend-timeout", raw.backend_timeout,
                 "The balancer's backend timeout in the hang runs, ms ({timeout}); default 1000");
  app.add_option("--start-timeout", raw.start_timeout,
                 "Time allowed to start a process, s; default 10s");
  app.add_option("--stampede", c.stampede_path,
                 "The stampede binary for serve/balance; default this one");
  app.add_option("--sweep-connections", raw.sweep,
                 "Sweep 1,2,4 or 1..64x2: the pool and the first instance side by side, -t per "
                 "step; alone, without the scenarios; default none");
  app.add_flag("--json", c.json, "The result as JSON on stdout");
  app.add_option("--html", c.html_path, "Also write an HTML report to FILE; default none");
  app.add_flag("-q,--quiet", c.quiet, "No progress lines on stderr");
  loadgen::add_metrics_options(app, raw.metrics);
}

std::vector<std::string> split(std::string_view text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    out.emplace_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

Expected<std::uint32_t> to_count(std::string_view flag, const std::string& text) {
  auto n = parse_count(text);
  if (!n || *n > 1'000'000'000) {
    return make_error(fmt::format("{}: expected a whole number, got '{}'", flag, text));
  }
  return static_cast<std::uint32_t>(*n);
}

Expected<std::chrono::nanoseconds> to_duration(std::string_view flag, const std::string& text,
                                               std::chrono::nanoseconds bare) {
  auto d = parse_duration(text, bare);
  if (!d) return make_error(fmt::format("{}: {}", flag, d.error().message));
  return *d;
}

Expected<milliseconds> to_ms(std::string_view flag, const std::string& text) {
  auto d = to_duration(flag, text, milliseconds(1));
  if (!d) return d.error();
  return std::chrono::duration_cast<milliseconds>(*d);
}

// NAME=VALUE -> (NAME, VALUE).
Expected<std::pair<std::string, std::string>> name_value(std::string_view flag,
                                                         std::string_view text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size()) {
    return make_error(fmt::format("{}: expected NAME=VALUE, got '{}'", flag, text));
  }
  return std::pair{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

Expected<void> convert_pool(const Raw& raw, LabConfig& c) {
  if (!raw.instance_specs.empty() && !raw.instances.empty()) {
    return make_error("give either -n/--instances or --instance, not both");
  }
  std::size_t count = 3;
  if (!raw.instances.empty()) {
    auto n = to_count("--instances", raw.instances);
    if (!n) return n.error();
    if (*n < 2 || *n > 26) return make_error("--instances: 2 to 26");
    count = *n;
  }
  for (const std::string& text : raw.instance_specs) {
    auto spec = parse_instance(text);
    if (!spec) return spec.error();
    c.instances.push_back(*spec);
  }
  if (c.instances.empty()) c.instances = default_instances(count);
  for (const std::string& text : raw.delays) {
    auto nv = name_value("--delay", text);
    if (!nv) return nv.error();
    auto it = std::find_if(c.instances.begin(), c.instances.end(),
                           [&](const InstanceSpec& s) { return s.name == nv->first; });
    if (it == c.instances.end()) {
      return make_error(fmt::format("--delay: no instance named '{}'", nv->first));
    }
    auto ms = to_ms("--delay", nv->second);
    if (!ms) return ms.error();
    it->delay = *ms;
  }
  return {};
}

Expected<void> convert_load(const Raw& raw, LabConfig& c) {
  using std::chrono::seconds;
  const auto count = [](std::string_view flag, const std::string& text, auto& field) {
    if (text.empty()) return Expected<void>();
    auto n = to_count(flag, text);
    if (!n) return Expected<void>(n.error());
    field = *n;
    return Expected<void>();
  };
  const auto duration = [](std::string_view flag, const std::string& text, auto& field,
                           std::chrono::nanoseconds bare) {
    if (text.empty()) return Expected<void>();
    auto d = to_duration(flag, text, bare);
    if (!d) return Expected<void>(d.error());
    field = std::chrono::duration_cast<std::remove_reference_t<decltype(field)>>(*d);
    return Expected<void>();
  };
  Expected<void> r = count("-c/--connections", raw.connections, c.load.connections);
  if (r) r = count("--cores", raw.cores, c.load.cores);
  if (r) r = count("--sessions", raw.sessions, c.sessions);
  if (r) r = count("--session-requests", raw.session_requests, c.session_requests);
  if (r) r = duration("-t/--duration", raw.duration, c.load.duration, seconds(1));
  if (r) r = duration("--outage-duration", raw.outage_duration, c.outage_duration, seconds(1));
  if (r) r = duration("--kill-after", raw.kill_after, c.kill_after, seconds(1));
  if (r) r = duration("--start-timeout", raw.start_timeout, c.balancer.start_timeout, seconds(1));
  if (r) r = duration("--hang-for", raw.hang_for, c.hang_for, seconds(1));
  if (r) {
    r = duration("--backend-timeout", raw.backend_timeout, c.backend_timeout,
                 std::chrono::milliseconds(1));
  }
  if (r && !raw.rps.empty()) {
    auto rps = parse_number(raw.rps);
    if (!rps || *rps <= 0) {
      return make_error(fmt::format("--rps: expected a positive number, got '{}'", raw.rps));
    }
    if (*rps > 10'000'000) return make_error("--rps: at most 10000000");
    c.load.rps = *rps;
  }
  return r;
}

Expected<void> convert_scenarios(const Raw& raw, LabConfig& c) {
  if (!raw.scenarios.empty()) {
    auto s = parse_scenarios(raw.scenarios);
    if (!s) return s.error();
    c.scenarios = *s;
  }
  if (!raw.strategies.empty()) c.balancer.strategies = split(raw.strategies);
  if (!raw.health_intervals.empty()) {
    c.health_intervals.clear();
    for (const std::string& h : split(raw.health_intervals)) {
      auto ms = to_ms("--health-intervals", h);
      if (!ms) return ms.error();
      c.health_intervals.push_back(*ms);
    }
  }
  if (!raw.slow.empty()) {
    const std::size_t eq = raw.slow.find('=');
    c.slow_instance = raw.slow.substr(0, eq);
    if (eq != std::string::npos) {
      auto ms = to_ms("--slow", raw.slow.substr(eq + 1));
      if (!ms) return ms.error();
      c.slow_delay = *ms;
    }
  }
  return {};
}

// --limit NAME[=N]: the instance the limit scenario caps, and its cap (validate_limit checks
// both against the pool and the range).
Expected<void> convert_limit(const Raw& raw, LabConfig& c) {
  if (raw.limit.empty()) return {};
  const std::size_t eq = raw.limit.find('=');
  c.limit_instance = raw.limit.substr(0, eq);
  if (eq == std::string::npos) return {};
  auto n = to_count("--limit", raw.limit.substr(eq + 1));
  if (!n) return n.error();
  c.limit_connections = *n;
  return {};
}

// --h2-connections and --h2-streams as numbers (validate_h2, lab/h2.h, checks their ranges
// against the pool and whether h2 runs).
Expected<void> convert_h2(const Raw& raw, LabConfig& c) {
  for (auto [flag, text, field] :
       {std::tuple{"--h2-connections", &raw.h2_connections, &c.h2_connections},
        std::tuple{"--h2-streams", &raw.h2_streams, &c.h2_streams}}) {
    if (text->empty()) continue;
    auto n = to_count(flag, *text);
    if (!n) return n.error();
    *field = *n;
  }
  return {};
}

// --sweep-connections: the steps (the generator's syntax); given without --scenarios, the lab
// runs the sweep alone.
Expected<void> convert_sweep(const Raw& raw, LabConfig& c) {
  if (raw.sweep.empty()) return {};
  auto steps = loadgen::parse_sweep_steps(raw.sweep);
  if (!steps) return steps.error();
  if (c.load.rps > 0) return make_error("--sweep-connections cannot go with --rps: closed loop");
  c.sweep = std::move(steps).value();
  if (raw.scenarios.empty()) c.scenarios.clear();
  return {};
}

// Which balancer, from which options were given.
Expected<void> choose_balancer(const Raw& raw, LabConfig& c) {
  BalancerSpec& b = c.balancer;
  if (!b.command.empty()) {
    b.kind = BalancerKind::Command;
  } else if (!b.url.empty()) {
    b.kind = BalancerKind::External;
    if (!raw.strategies.empty() || !raw.health_intervals.empty()) {
      return make_error(
          "--strategies and --health-intervals need a balancer the lab starts (the built-in "
          "one or --balancer-cmd); --balancer-url alone is used as it is configured");
    }
  }
  // The hang's finding quotes the timeout: refuse one the balancer would never be given.
  if (!raw.backend_timeout.empty() && !varies_timeout(b)) {
    return make_error(
        "--backend-timeout needs a balancer that takes it: the built-in one, or a "
        "--balancer-cmd with {timeout} in it");
  }
  return {};
}

}  // namespace

Expected<InstanceSpec> parse_instance(std::string_view text) {
  auto nv = name_value("--instance", text);
  if (!nv) return nv.error();
  InstanceSpec spec;
  spec.name = nv->first;
  const std::string& hp = nv->second;
  const std::size_t colon = hp.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == hp.size()) {
    return make_error(fmt::format("--instance {}: expected HOST:PORT, got '{}'", spec.name, hp));
  }
  spec.host = hp.substr(0, colon);
  if (spec.host.size() > 2 && spec.host.front() == '[' && spec.host.back() == ']') {
    spec.host = spec.host.substr(1, spec.host.size() - 2);
  }
  auto port = parse_count(hp.substr(colon + 1));
  if (!port || *port > 65535) {
    return make_error(fmt::format("--instance {}: bad port in '{}'", spec.name, hp));
  }
  spec.port = static_cast<std::uint16_t>(*port);
  return spec;
}

Expected<CommandLine> parse_command_line(const std::vector<std::string>& args) {
  CommandLine cli;
  Raw raw;
  LabConfig c;
  CLI::App app("stampede lab: the load-balancing check of the guide, against any balancer",
               "stampede lab");
  declare(app, raw, c);
  const Expected<bool> help = parse_cli_into(cli, app, args);
  if (!help) return help.error();
  if (*help) return cli;
  // "--strategies ''" would otherwise run the default list, as if nothing had been typed.
  if (auto r = refuse_empty_values(app); !r) return r.error();
  Expected<void> r = convert_pool(raw, c);
  if (r) r = convert_load(raw, c);
  if (r) r = convert_scenarios(raw, c);
  if (r) r = convert_limit(raw, c);
  if (r) r = convert_h2(raw, c);
  if (r) r = choose_balancer(raw, c);
  if (r) r = convert_sweep(raw, c);
  if (!r) return r.error();
  auto metrics = loadgen::to_metrics_settings(raw.metrics);
  if (!metrics) return metrics.error();
  cli.metrics = *metrics;
  return with_prepared_plan(std::move(cli), std::move(c));
}

}  // namespace stampede::lab
