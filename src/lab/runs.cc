#include "lab/runs.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <ostream>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "core/clock.h"
#include "lab/failure_clock.h"
#include "lab/sources.h"

namespace stampede::lab {
namespace {

using namespace std::chrono_literals;

constexpr std::uint64_t kProbeRequests = 50;  // direct latency probe, per instance
constexpr auto kProbeLimit = 1s;
constexpr auto kSessionLimit = 120s;  // a session's run, whatever happens
constexpr auto kSessionRequestTimeout = 10s;

// Attaches a StopSignal to the interrupt for the lifetime of a run.
class Attached {
 public:
  Attached(Interrupt& interrupt, loadgen::StopSignal& stop) : interrupt_(interrupt), stop_(stop) {
    interrupt_.attach(stop_);
  }
  ~Attached() { interrupt_.detach(stop_); }
  Attached(const Attached&) = delete;
  Attached& operator=(const Attached&) = delete;

 private:
  Interrupt& interrupt_;
  loadgen::StopSignal& stop_;
};

std::vector<std::string> counted_headers() {
  return {std::string(kInstanceHeader), std::string(kBackendHeader)};
}

// Calls `action` once `delay` has passed, on a thread of its own, unless cancelled first.
// The destructor cancels and joins.
class DelayedAction {
 public:
  DelayedAction(std::chrono::nanoseconds delay, std::function<void()> action)
      : deadline_(std::chrono::steady_clock::now() + delay), action_(std::move(action)) {
    thread_ = std::thread([this] { wait_and_act(); });
  }
  ~DelayedAction() {
    {
      std::lock_guard lock(mutex_);
      cancelled_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  DelayedAction(const DelayedAction&) = delete;
  DelayedAction& operator=(const DelayedAction&) = delete;

  // When the action ran (mono_ns), or 0. Read after the destructor would be racy: read
  // through this, which locks.
  std::int64_t acted_ns() {
    std::lock_guard lock(mutex_);
    return acted_ns_;
  }

 private:
  void wait_and_act() {
    std::unique_lock lock(mutex_);
    if (cv_.wait_until(lock, deadline_, [this] { return cancelled_; })) return;
    action_();
    acted_ns_ = mono_ns();
  }

  std::chrono::steady_clock::time_point deadline_;
  std::function<void()> action_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool cancelled_ = false;
  std::int64_t acted_ns_ = 0;
  std::thread thread_;  // last: started once everything it uses exists
};

}  // namespace

loadgen::Config make_load_config(const LoadSettings& load, const std::string& url) {
  loadgen::Config config;
  config.url = url;
  config.concurrency = load.connections;
  config.cores = load.cores;
  config.keep_alive = true;
  config.max_duration = load.duration;
  config.rps = load.rps;
  config.count_headers = counted_headers();
  return config;
}

Expected<loadgen::RunResult> run_load(const loadgen::Config& config, Interrupt& interrupt,
                                      const loadgen::RunHooks& hooks) {
  loadgen::StopSignal stop;
  Attached attached(interrupt, stop);
  loadgen::RunHooks with_stop = hooks;
  with_stop.stop = &stop;
  return loadgen::run(config, with_stop);
}

Expected<std::vector<loadgen::SweepStep>> run_sweep_load(const loadgen::Config& config,
                                                         const std::vector<std::uint32_t>& steps,
                                                         Interrupt& interrupt,
                                                         loadgen::LiveFeed* live) {
  auto plan = loadgen::prepare(config);
  if (!plan) return plan.error();
  loadgen::StopSignal stop;
  Attached attached(interrupt, stop);
  loadgen::SweepHooks hooks;
  hooks.run.stop = &stop;
  hooks.run.live = live;
  auto sweep = loadgen::run_sweep(*plan, steps, hooks);
  if (!sweep) return sweep.error();
  return std::move(sweep->steps);
}

Expected<std::vector<SessionResult>> run_sessions(const std::string& url, std::uint32_t sessions,
                                                  std::uint32_t requests, Interrupt& interrupt,
                                                  LiveRuns* live, const RunLabels& labels) {
  std::vector<loadgen::Config> configs(sessions);
  std::vector<loadgen::RunHooks> hooks(sessions);
  std::vector<std::optional<Expected<loadgen::RunResult>>> results(sessions);
  for (std::uint32_t i = 0; i < sessions; ++i) {
    loadgen::Config& c = configs[i];
    c.url = url;
    c.concurrency = 1;
    c.keep_alive = true;
    c.max_requests = requests;
    c.max_duration = kSessionLimit;
    c.timeout = kSessionRequestTimeout;
    c.headers = {{std::string(kSessionHeader), fmt::format("s{}", i + 1)}};
    c.count_headers = counted_headers();
    if (live != nullptr) {
      RunLabels session = labels;
      session.session = fmt::format("s{}", i + 1);
      hooks[i].live = &live->feed(session);
    }
  }
  std::vector<std::thread> threads;
  Expected<void> started;
  try {
    for (std::uint32_t i = 0; i < sessions; ++i) {
      threads.emplace_back([&, i] { results[i] = run_load(configs[i], interrupt, hooks[i]); });
    }
  } catch (const std::system_error& e) {
    interrupt.trigger();  // the sessions already started stop at once
    started = make_error(std::string("cannot start a session thread: ") + e.what());
  }
  for (std::thread& t : threads)
    t.join();
  if (!started) return started.error();
  std::vector<SessionResult> out;
  for (std::uint32_t i = 0; i < sessions; ++i) {
    if (!*results[i]) return results[i]->error();
    out.push_back({fmt::format("s{}", i + 1), std::move(*results[i]).value()});
  }
  return out;
}

FailureWatch::FailureWatch(loadgen::LiveFeed* live) {
  hooks_.live = live;
  hooks_.progress = &progress_;
  hooks_.progress_interval = kFailureTimingInterval;
  start_ns_ = mono_ns();
}

double FailureWatch::resolution_s() const {
  return std::chrono::duration<double>(kFailureTimingInterval).count();
}

Expected<OutageResult> run_outage(const loadgen::Config& config,
                                  std::chrono::nanoseconds kill_after,
                                  const std::function<void()>& kill, Interrupt& interrupt,
                                  loadgen::LiveFeed* live) {
  FailureWatch watch(live);  // not const: the run writes to its stream
  const FailureClock& failures = watch.failures();
  const std::int64_t start = watch.start_ns();
  std::int64_t killed_ns = 0;
  std::optional<Expected<loadgen::RunResult>> result;
  try {
    DelayedAction killer(kill_after, kill);
    result = run_load(config, interrupt, watch.hooks());
    killed_ns = killer.acted_ns();
  } catch (const std::system_error& e) {
    return make_error(std::string("cannot start the outage thread: ") + e.what());
  }
  const std::int64_t end = mono_ns();
  if (!*result) return result->error();
  OutageResult out;
  out.result = std::move(*result).value();
  out.resolution_s = watch.resolution_s();
  if (killed_ns != 0) out.kill_at_s = static_cast<double>(killed_ns - start) / 1e9;
  std::int64_t last = 0;
  if (out.result.total_errors > failures.errors_seen()) {
    last = end;  // some failed after the last progress line: no later than the end
  } else if (failures.errors_seen() > 0) {
    last = failures.last_growth_ns();
  }
  if (last != 0) out.last_failure_s = static_cast<double>(last - start) / 1e9;
  return out;
}

Expected<void> h2_first_answer(const std::string& url, std::chrono::milliseconds timeout) {
  loadgen::Config config;
  config.url = url;
  config.http2 = true;
  config.concurrency = 1;
  config.max_requests = 1;
  config.max_duration = timeout;
  config.timeout = timeout;
  auto result = loadgen::run(config, {});
  if (!result) return result.error();
  for (const auto& [status, n] : result->status_counts)
    if (status < 500) return {};
  std::string what;
  for (const auto& [code, n] : result->error_codes)
    what += (what.empty() ? "" : ", ") + code;
  for (const auto& [code, n] : result->local_errors)
    what += (what.empty() ? "" : ", ") + code;
  if (what.empty()) what = fmt::format("no response within {} ms", timeout.count());
  return make_error(
      fmt::format("answered no first HTTP/2 (h2c) GET / ({}): it does not take HTTP/2 from its "
                  "clients, or no instance is reachable through it",
                  what));
}

Expected<DirectLatency> probe_latency(const std::string& host_port, Interrupt& interrupt,
                                      loadgen::LiveFeed* live) {
  loadgen::Config config;
  config.url = "http://" + host_port + "/";
  config.concurrency = 1;
  config.keep_alive = true;
  config.max_requests = kProbeRequests;
  config.max_duration = kProbeLimit;
  loadgen::RunHooks hooks;
  hooks.live = live;
  auto result = run_load(config, interrupt, hooks);
  if (!result) return result.error();
  if (result->latency.count() == 0 || result->total_errors == result->total_requests) {
    return make_error(
        fmt::format("{} answered none of {} direct requests", host_port, result->total_requests));
  }
  DirectLatency out;
  out.p50_ms = static_cast<double>(result->latency.percentile(50)) / 1e6;
  out.p99_ms = static_cast<double>(result->latency.percentile(99)) / 1e6;
  return out;
}

}  // namespace stampede::lab
