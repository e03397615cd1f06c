// LabConfig: everything `stampede lab` is told, as a plain struct. The command line
// (cli/lab_options.h) fills it, prepare() (plan.h) checks it into a LabPlan, run_lab() (lab.h)
// consumes the plan.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "http/url.h"
#include "lab/scenario.h"

namespace stampede::lab {

using Millis = std::chrono::milliseconds;

// One instance the lab starts: `stampede serve --id NAME` on HOST:PORT (port 0: a free one).
struct InstanceSpec {
  std::string name;
  std::string host = "127.0.0.1";  // a loopback literal
  std::uint16_t port = 0;
  Millis delay{0};  // its delay in every scenario (--delay NAME=MS)
};

// Which balancer the lab drives.
enum class BalancerKind {
  BuiltIn,   // `stampede balance`, started by the lab for each run
  Command,   // --balancer-cmd: a shell command the lab starts, restarts and stops
  External,  // --balancer-url only: already running, never touched
};

struct BalancerSpec {
  BalancerKind kind = BalancerKind::BuiltIn;
  std::string command;  // --balancer-cmd, placeholders not yet substituted
  std::string url;      // --balancer-url; with Command, where CMD listens (else {port} is used)
  // The strategies under test, as given to the balancer ({strategy} for a command).
  std::vector<std::string> strategies{"rr", "least", "sticky"};
  // The strategy that keeps sessions: the sticky scenario runs with it; even and slow run with
  // every other strategy.
  std::string sticky_strategy = "sticky";
  Millis start_timeout{10000};  // from spawn to accepting connections
};

// The generator's settings for the even and slow runs (the guide's -c 12 -t 5; the lab's
// default run is shorter so that all scenarios fit in a minute). `make_load_config()` (runs.h)
// turns them into a loadgen::Config.
struct LoadSettings {
  std::uint32_t connections = 12;
  std::chrono::nanoseconds duration = std::chrono::seconds(3);
  std::uint32_t cores = 1;  // generator worker threads
  double rps = 0;           // --rps: open loop at this total rate (loadgen::Config::rps); 0: closed
};

struct LabConfig {
  std::vector<InstanceSpec> instances;  // at least 2, distinct names
  BalancerSpec balancer;
  LoadSettings load;
  std::vector<ScenarioKind> scenarios = default_scenarios();

  std::string slow_instance;  // slow scenario: this one gets `slow_delay` (default: the last)
  Millis slow_delay{50};
  std::uint32_t sessions = 4;  // sticky scenario: sessions x requests each
  std::uint32_t session_requests = 300;
  std::string kill_instance;  // outage scenario: the instance killed (default: the last)
  std::vector<Millis> health_intervals{Millis(0), Millis(1000), Millis(200)};
  std::chrono::nanoseconds outage_duration = std::chrono::seconds(6);
  std::chrono::nanoseconds kill_after = std::chrono::seconds(2);
  // limit scenario: this instance (default: the last) refuses past this many connections.
  std::string limit_instance;
  std::uint32_t limit_connections = 2;
  // hang scenario: `hang_instance` (default: the last) is stopped (SIGSTOP) `kill_after` into an
  // `outage_duration` run, at each of `health_intervals`, and resumed (SIGCONT) `hang_for` later;
  // the balancer runs with `backend_timeout` (--backend-timeout; {timeout} for a command).
  std::string hang_instance;
  std::chrono::nanoseconds hang_for = std::chrono::seconds(2);
  Millis backend_timeout{1000};
  // h2 scenario: --h2-connections HTTP/2 connections of --h2-streams streams each. Not given:
  // 2 connections (1 for a pool of 2) and 10 streams (h2_load_of, h2.h); always fewer
  // connections than instances, and given while h2 does not run: refused (validate).
  std::optional<std::uint32_t> h2_connections;
  std::optional<std::uint32_t> h2_streams;

  // --sweep-connections: the connection counts of the sweep through the balancer and straight to
  // the first instance (each step -t long); empty: no sweep.
  std::vector<std::uint32_t> sweep;

  std::string stampede_path;  // the binary run as `serve` and `balance` (default /proc/self/exe)
  bool json = false;          // JSON on stdout instead of the text report
  std::string html_path;      // also write the HTML report here
  bool quiet = false;         // no progress lines on stderr
};

// The default pool: `count` instances named a, b, c, ... on free loopback ports.
std::vector<InstanceSpec> default_instances(std::size_t count);

// Fills the defaults that depend on other fields (slow and killed instance: the last one).
void apply_defaults(LabConfig& config);

// Checks ranges, names, loopback-only addresses and the scenario/strategy combination.
// Returns the first problem as one line without the "stampede: " prefix. Every check of a
// LabConfig is here, worded once; prepare() (plan.h) runs them through check_config().
Expected<void> validate(const LabConfig& config);

// validate()'s checks, keeping what they parse: --balancer-url (nullopt when not given).
Expected<std::optional<http::Url>> check_config(const LabConfig& config);

// True when `host` is a loopback literal (127.0.0.0/8, ::1) or "localhost".
bool is_loopback_host(std::string_view host);

// The strategies the even, slow and outage scenarios run with: every strategy except the
// sticky one, in order. With an external balancer: one unnamed run ("").
std::vector<std::string> load_strategies(const BalancerSpec& balancer);

}  // namespace stampede::lab
