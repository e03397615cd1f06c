// What the lab measured, as plain data: one RunRecord per run, each instance's line with its
// three counts. Built by lab.cc from the generator's RunResult and the instances' /count; read
// by the findings (pure functions) and the reporters.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lab/scenario.h"
#include "loadgen/sweep.h"

namespace stampede::lab {

// One instance in one run.
struct InstanceRow {
  std::string name;
  std::int64_t delay_ms = 0;  // its delay during the run
  // Source 1, the instance's own /count after the run; nullopt when it could not be read
  // (killed, or not answering).
  std::optional<std::uint64_t> served;
  std::uint64_t by_instance = 0;    // source 2: responses with `x-instance: NAME`
  std::uint64_t by_backend = 0;     // source 3: responses with `x-backend: NAME`
  bool killed = false;              // killed during the run (outage)
  std::optional<bool> balancer_up;  // the balancer's /lb-stats view, when it was read
  // Its latency measured directly (not through the balancer) on the idle pool, in ms.
  std::optional<double> direct_p50_ms;
  std::optional<double> direct_p99_ms;
  // limit scenario: the instance's --max-connections (it refuses past it); nullopt: no cap.
  std::optional<std::uint32_t> max_connections;
};

// One session of the sticky scenario: which instances served it.
struct SessionRow {
  std::string name;  // the x-session value
  std::uint64_t requests = 0;
  std::uint64_t errors = 0;
  std::map<std::string, std::uint64_t> by_instance;  // x-instance value -> responses
  std::map<std::string, std::uint64_t> by_backend;   // x-backend value -> responses
};

// The outage scenario's timing: when the instance died, when the failures stopped.
struct OutageTiming {
  std::string killed;    // the instance killed
  double kill_at_s = 0;  // after the start of the run
  // From the kill to the last failed request (an upper bound, within `resolution_s`);
  // nullopt when no request failed.
  std::optional<double> last_failure_after_kill_s;
  double resolution_s = 0;
  double run_s = 0;  // the run's length: a last failure near its end means "never stopped"
};

// The hang scenario's timing (hang.h's time_hang), seconds: the instance stopped at `stop_at_s`
// into the run and continued `hang_s` later. Failure moments are upper bounds within
// `resolution_s` (the generator's progress lines).
struct HangTiming {
  std::string hung;  // the instance stopped
  double stop_at_s = 0;
  double hang_s = 0;  // from SIGSTOP to SIGCONT
  double run_s = 0;
  double resolution_s = 0;
  std::optional<std::int64_t> backend_timeout_ms;  // nullopt: a command's own configuration
  std::optional<std::int64_t> health_timeout_ms;   // the built-in's checks; nullopt: off/unknown
  std::uint64_t failed_in_hang = 0;                // from the stop to the resume
  std::uint64_t failed_after_resume = 0;
  std::optional<double> last_failure_in_hang_s;       // after the stop
  std::optional<double> last_failure_after_resume_s;  // after the resume
  std::optional<double> down_after_stop_s;            // the balancer's /lb-stats said down
  std::optional<double> up_after_resume_s;            // ... and up again
};

// The sweep (--sweep-connections): the same closed-loop steps through the balancer (the pool)
// and straight to one instance, side by side.
struct SweepRecord {
  std::string strategy;  // the balancer's, as in --strategies ("" for an external balancer)
  std::string instance;  // the single instance swept directly
  std::size_t pool_size = 0;
  std::vector<loadgen::SweepStep> pool;    // through the balancer
  std::vector<loadgen::SweepStep> single;  // straight to `instance`
};

// The h2 scenario's load: its HTTP/2 connections and the streams each carried at once.
struct H2Load {
  std::uint32_t connections = 0;
  std::uint32_t streams = 0;
};

struct RunRecord {
  ScenarioKind scenario = ScenarioKind::Even;
  std::string strategy;                   // empty: an external balancer as configured
  std::optional<std::int64_t> health_ms;  // the balancer's check interval (0: off)
  std::optional<int> retries;             // the built-in balancer's --retries when the lab set it
  std::vector<InstanceRow> instances;

  std::uint64_t requests = 0;  // every request the generator completed or failed
  std::uint64_t errors = 0;    // non-2xx/3xx responses and transport failures
  std::map<std::string, std::uint64_t> error_codes;  // "502", "ECONNREFUSED", ...
  double seconds = 0;
  double rps = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  std::vector<std::pair<double, double>> latency;  // (percentile, ms) distribution

  bool backend_header = false;  // some response carried x-backend
  // Header values that name no instance of the lab (value -> responses).
  std::map<std::string, std::uint64_t> stray_instance_values;
  std::map<std::string, std::uint64_t> stray_backend_values;

  std::vector<SessionRow> sessions;    // sticky
  std::optional<OutageTiming> outage;  // outage
  std::optional<HangTiming> hang;      // hang
  std::optional<H2Load> h2;            // h2

  // "even/rr", "outage/rr/health=200ms", "sticky/sticky", "slow" (external),
  // "limit/rr/retries=0".
  std::string label() const;
  // The instance with this name, or null.
  const InstanceRow* find(const std::string& name) const;
};

}  // namespace stampede::lab
