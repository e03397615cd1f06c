#include "lab/hang.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <ostream>
#include <system_error>
#include <thread>

#include "core/clock.h"
#include "lab/failure_clock.h"
#include "lab/runs.h"

namespace stampede::lab {
namespace {

using namespace std::chrono_literals;
using SteadyTime = std::chrono::steady_clock::time_point;

constexpr auto kWatchInterval = 20ms;  // /lb-stats polls

double seconds_between(std::int64_t from_ns, std::int64_t to_ns) {
  return static_cast<double>(to_ns - from_ns) / 1e9;
}

// The hang's thread: SIGSTOP at `after`, SIGCONT `hold` later, the balancer's view polled in
// between and after. The destructor cancels, joins, and continues an instance still stopped.
class Hanger {
 public:
  Hanger(HangTimes times, const HangActions& actions)
      : start_(std::chrono::steady_clock::now()), times_(times), actions_(actions) {
    thread_ = std::thread([this] { act(); });
  }
  ~Hanger() { cancel_and_join(); }
  Hanger(const Hanger&) = delete;
  Hanger& operator=(const Hanger&) = delete;

  // mono_ns of each event, 0 when it did not happen.
  struct Events {
    std::int64_t stopped_ns = 0, resumed_ns = 0, down_ns = 0, up_ns = 0;
  };
  // Cancels, joins (the instance is continued by then) and returns what happened.
  Events finish() {
    cancel_and_join();
    return events_;
  }

 private:
  void cancel_and_join() {
    {
      std::lock_guard lock(mutex_);
      cancelled_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  // Waits until `until` or the cancel; true when cancelled.
  bool wait(SteadyTime until) {
    std::unique_lock lock(mutex_);
    return cv_.wait_until(lock, until, [this] { return cancelled_; });
  }

  void act() {
    if (wait(start_ + times_.after)) return;
    actions_.stop();
    events_.stopped_ns = mono_ns();
    const SteadyTime resume_at = std::chrono::steady_clock::now() + times_.hold;
    while (std::chrono::steady_clock::now() < resume_at) {
      if (events_.down_ns == 0 && actions_.up && actions_.up() == false) {
        events_.down_ns = mono_ns();
      }
      if (wait(std::min(resume_at, std::chrono::steady_clock::now() + kWatchInterval))) break;
    }
    actions_.resume();  // on every path out of the hang, cancelled or not
    events_.resumed_ns = mono_ns();
    while (actions_.up && events_.down_ns != 0) {
      if (actions_.up() == true) {
        events_.up_ns = mono_ns();
        return;
      }
      if (wait(std::chrono::steady_clock::now() + kWatchInterval)) return;
    }
  }

  SteadyTime start_;
  HangTimes times_;
  const HangActions& actions_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool cancelled_ = false;
  Events events_;
  std::thread thread_;  // last: started once everything it uses exists
};

}  // namespace

Expected<HangOutcome> run_hang(const loadgen::Config& config, HangTimes times,
                               const HangActions& actions, Interrupt& interrupt,
                               loadgen::LiveFeed* live) {
  FailureWatch watch(live);  // not const: the run writes to its stream
  const FailureClock& failures = watch.failures();
  const std::int64_t start = watch.start_ns();
  std::optional<Expected<loadgen::RunResult>> result;
  std::optional<Hanger> hanger;
  try {
    hanger.emplace(times, actions);
    result = run_load(config, interrupt, watch.hooks());
  } catch (const std::system_error& e) {
    return make_error(std::string("cannot start the hang thread: ") + e.what());
  }
  const std::int64_t end = mono_ns();
  const Hanger::Events events = hanger->finish();
  if (!*result) return result->error();
  HangOutcome out;
  out.result = std::move(*result).value();
  out.resolution_s = watch.resolution_s();
  const auto at = [&](std::int64_t ns) {
    return ns == 0 ? std::nullopt : std::optional(seconds_between(start, ns));
  };
  out.stop_at_s = at(events.stopped_ns);
  out.resume_at_s = at(events.resumed_ns);
  out.down_at_s = at(events.down_ns);
  out.up_at_s = at(events.up_ns);
  for (const FailureClock::Growth& g : failures.growths())
    out.failures_grew.push_back({seconds_between(start, g.ns), g.accumulated});
  if (out.result.total_errors > failures.errors_seen()) {
    // Some failed after the last progress line: no later than the end.
    out.failures_grew.push_back({seconds_between(start, end), out.result.total_errors});
  }
  return out;
}

HangTiming time_hang(const HangOutcome& outcome, const std::string& instance,
                     std::optional<std::int64_t> backend_timeout_ms,
                     std::optional<std::int64_t> health_timeout_ms) {
  HangTiming t;
  t.hung = instance;
  t.run_s = outcome.result.elapsed_seconds();
  t.resolution_s = outcome.resolution_s;
  t.backend_timeout_ms = backend_timeout_ms;
  t.health_timeout_ms = health_timeout_ms;
  if (!outcome.stop_at_s) return t;
  t.stop_at_s = *outcome.stop_at_s;
  const double resume = outcome.resume_at_s.value_or(t.run_s);
  t.hang_s = resume - t.stop_at_s;
  // A progress line up to one interval after the resume still reports failures of the hang.
  const double hang_end = resume + outcome.resolution_s;
  std::uint64_t before_stop = 0;
  for (const HangOutcome::Growth& g : outcome.failures_grew) {
    if (g.at_s <= t.stop_at_s) {
      before_stop = g.accumulated;
    } else if (g.at_s <= hang_end) {
      t.failed_in_hang = g.accumulated - before_stop;
      t.last_failure_in_hang_s = g.at_s - t.stop_at_s;
    } else {
      t.failed_after_resume = g.accumulated - before_stop - t.failed_in_hang;
      t.last_failure_after_resume_s = g.at_s - resume;
    }
  }
  if (outcome.down_at_s) t.down_after_stop_s = *outcome.down_at_s - t.stop_at_s;
  if (outcome.up_at_s) t.up_after_resume_s = *outcome.up_at_s - resume;
  return t;
}

}  // namespace stampede::lab
