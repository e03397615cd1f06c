#include "loadgen/runner.h"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <system_error>
#include <thread>
#include <vector>

#include <time.h>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "core/clock.h"
#include "loadgen/live.h"
#include "loadgen/route.h"
#include "loadgen/worker.h"
#include "loadgen/ws_client.h"
#include "net/socket.h"

namespace stampede::loadgen {
namespace {

using Clock = std::chrono::steady_clock;  // CLOCK_MONOTONIC, like mono_ns()

Clock::time_point to_time_point(std::int64_t ns) {
  return Clock::time_point(std::chrono::nanoseconds(ns));
}

// Wakes the runner's thread: a worker is done, or a stop was requested.
struct Monitor {
  std::mutex mutex;
  std::condition_variable cv;
  std::uint32_t done = 0;
  bool stop = false;

  void worker_done() {
    std::lock_guard lock(mutex);
    ++done;
    cv.notify_all();
  }
  void request_stop() {
    std::lock_guard lock(mutex);
    stop = true;
    cv.notify_all();
  }
};

// loadtest's progress lines, from the workers' relaxed counters.
class ProgressPrinter {
 public:
  ProgressPrinter(std::ostream& out, const Config& config,
                  const std::vector<std::unique_ptr<Worker>>& workers, std::int64_t start_ns)
      : out_(out), config_(config), workers_(workers), last_ns_(start_ns) {}

  void print(std::int64_t now_ns) {
    std::uint64_t requests = 0, errors = 0, latency = 0;
    for (const auto& w : workers_) {
      requests += w->progress().requests.load(std::memory_order_relaxed);
      errors += w->progress().errors.load(std::memory_order_relaxed);
      latency += w->progress().latency_sum_ns.load(std::memory_order_relaxed);
    }
    const double seconds = static_cast<double>(now_ns - last_ns_) / 1e9;
    const std::uint64_t partial = requests - requests_;
    const double mean_ms =
        partial ? static_cast<double>(latency - latency_) / static_cast<double>(partial) / 1e6 : 0;
    std::string percent;
    if (config_.max_requests > 0) {
      percent = fmt::format(" ({}%)", std::llround(100.0 * static_cast<double>(requests) /
                                                   static_cast<double>(config_.max_requests)));
    }
    fmt::print(out_, "Requests: {}{}, requests per second: {}, mean latency: {:.3f} ms\n", requests,
               percent, std::llround(static_cast<double>(partial) / seconds), mean_ms);
    if (errors > 0) {
      fmt::print(out_, "Errors: {}, accumulated errors: {}, {:.1f}% of total requests\n",
                 errors - errors_, errors,
                 100.0 * static_cast<double>(errors) / static_cast<double>(requests));
    }
    out_.flush();
    requests_ = requests;
    errors_ = errors;
    latency_ = latency;
    last_ns_ = now_ns;
  }

 private:
  std::ostream& out_;
  const Config& config_;
  const std::vector<std::unique_ptr<Worker>>& workers_;
  std::int64_t last_ns_;
  std::uint64_t requests_ = 0, errors_ = 0, latency_ = 0;
};

// Splits `total` as evenly as possible: part `i` of `parts`.
std::uint32_t share(std::uint32_t total, std::uint32_t parts, std::uint32_t i) {
  return total / parts + (i < total % parts ? 1 : 0);
}

Expected<std::vector<std::unique_ptr<Worker>>> make_workers(const Plan& plan,
                                                            const ConnectionContext& context,
                                                            SharedBudget& budget, Monitor& monitor,
                                                            std::uint32_t count) {
  const Config& config = plan.config;
  std::vector<std::unique_ptr<Worker>> workers;
  const std::uint32_t connections = config.shard.connections_of(config.concurrency);
  for (std::uint32_t i = 0; i < count; ++i) {
    WorkerParams params;
    params.id = i;
    params.connections = share(connections, count, i);
    params.io = config.io;
    params.context = context;
    params.budget = &budget;
    params.shard = config.shard;
    if (config.rps > 0) {
      params.pacer = std::make_unique<OpenLoopPacer>(RateSchedule(config.rps, config.ramp.count()),
                                                     i, count, config.shard);
    }
    params.paced = config.rps > 0;
    params.timeline = config.timeline || config.rps > 0;
    params.drain_ns = config.drain_timeout().count();
    params.on_done = [&monitor] { monitor.worker_done(); };
    params.on_stop = [&monitor] { monitor.request_stop(); };
    params.log = plan.log.get();
    if (config.hooks) {
      auto hook = config.hooks->make(i);
      if (!hook) return hook.error();
      params.hook = std::move(hook).value();
    }
    auto worker = Worker::create(std::move(params));
    if (!worker) return worker.error();
    workers.push_back(std::move(worker).value());
  }
  return workers;
}

// Waits for the workers, printing progress and passing on a stop request. Returns the time
// of the stop request, or 0.
std::int64_t supervise(Monitor& monitor, const std::vector<std::unique_ptr<Worker>>& workers,
                       ProgressPrinter* printer, std::chrono::nanoseconds interval,
                       std::int64_t start_ns) {
  std::int64_t next_progress = start_ns + interval.count();
  std::int64_t stopped_at = 0;
  std::unique_lock lock(monitor.mutex);
  while (monitor.done < workers.size()) {
    if (monitor.stop && stopped_at == 0) {
      stopped_at = mono_ns();
      for (const auto& w : workers)
        w->interrupt();
      continue;
    }
    if (printer == nullptr || stopped_at != 0) {
      monitor.cv.wait(lock);
      continue;
    }
    monitor.cv.wait_until(lock, to_time_point(next_progress));
    const std::int64_t now = mono_ns();
    if (now >= next_progress && monitor.done < workers.size() && !monitor.stop) {
      lock.unlock();
      printer->print(now);
      lock.lock();
      next_progress += interval.count();
    }
  }
  return stopped_at;
}

void fill_result(RunResult& result, const WorkerStats& total, const Config& config) {
  result.total_requests = total.requests();
  result.total_errors = total.errors();
  result.latency = total.latency();
  result.connect = total.connect();
  result.tls_handshake = total.tls_handshake();
  result.first_byte = total.first_byte();
  for (int status = 0; status < WorkerStats::kMaxStatus; ++status) {
    const std::uint64_t n = total.status_count(status);
    if (n == 0) continue;
    result.status_counts[status] = n;
    if (!WorkerStats::is_error_status(status)) continue;
    const auto relabelled = total.relabelled().find(status);
    const std::uint64_t errors =
        n - (relabelled == total.relabelled().end() ? 0 : relabelled->second);
    if (errors > 0) result.error_codes[std::to_string(status)] += errors;
  }
  for (const auto& [code, n] : total.custom_errors())
    result.error_codes[code] += n;
  for (int err = 1; err < WorkerStats::kMaxErrno; ++err) {
    const std::uint64_t n = total.failure_count(err);
    if (n == 0) continue;
    auto& codes = WorkerStats::is_local_failure(err) ? result.local_errors : result.error_codes;
    codes[failure_name(err)] += n;
  }
  for (std::size_t h = 0; h < total.header_counts().size(); ++h) {
    auto& counts = result.header_counts[config.count_headers[h]];
    for (const auto& [value, n] : total.header_counts()[h])
      counts[value] += n;
  }
  result.bytes_read = total.bytes_read();
  result.bytes_written = total.bytes_written();
  result.connections_opened = total.connections();
  result.tls_handshakes = total.tls_handshakes();
  result.tls_resumed = total.tls_resumed();
  result.ws = total.ws();
  add_ws_error_codes(result.ws, result.error_codes);
  result.h2 = total.h2();
}

RunResult settings_of(const Plan& plan, std::uint32_t workers) {
  const Config& config = plan.config;
  RunResult r;
  r.url = config.url;
  r.cores = workers;
  r.max_requests = config.shard.share_of(config.max_requests);
  r.max_seconds = std::chrono::duration<double>(config.effective_duration()).count();
  r.concurrency = config.concurrency;
  r.keep_alive = config.keep_alive;
  r.clients = config.shard.connections_of(config.concurrency);
  r.shard = config.shard;
  r.websocket = plan.websocket();
  r.http2 = config.http2;
  r.streams = config.streams;
  return r;
}

ConnectionContext make_context(const Plan& plan, const net::Address& address) {
  const Config& config = plan.config;
  ConnectionContext context;
  context.request = &plan.request;
  context.address = address;
  context.tls = plan.route.tls.get();
  context.server_name = plan.route.server_name;
  context.connect_request = plan.route.connect_request;
  context.keep_alive = config.keep_alive;
  context.pipeline = config.pipeline;
  context.head_request = config.method == "HEAD";
  context.timeout_ns = config.timeout.count();
  context.count_headers = config.count_headers;
  context.paced = config.rps > 0;
  context.hook_set = config.hooks.get();
  if (plan.websocket()) context.websocket = &plan.ws;
  if (config.http2) {
    context.h2 = &plan.h2;
    context.streams = config.streams;
  }
  return context;
}

// The open-loop figures and the timeline. send_window_ns: how long the run was sending.
void fill_rate(RunResult& result, const WorkerStats& total, const Config& config,
               std::int64_t send_window_ns) {
  const RateStats* rate = total.rate();
  if (rate == nullptr) return;
  if (const stats::Timeline* timeline = rate->timeline()) {
    result.timeline = timeline->rows(result.elapsed_ns);
    result.timeline_sketch = std::make_shared<const stats::Timeline>(*timeline);
  }
  if (!rate->paced()) return;
  RateResult& r = result.rate.emplace();
  // A shard's share of the run's schedule: its slots among those due in the window.
  r.target_rps = config.rps / config.shard.count;
  r.ramp_seconds = std::chrono::duration<double>(config.ramp).count();
  const std::uint64_t due =
      RateSchedule(config.rps, config.ramp.count()).count_before(send_window_ns);
  r.scheduled = config.shard.slots_of(due);
  if (config.max_requests > 0) {
    r.scheduled = std::min(r.scheduled, config.shard.share_of(config.max_requests));
  }
  r.send_window_ns = send_window_ns;
  r.uncorrected = *rate->uncorrected();
  r.lag = *rate->lag();
  r.late = rate->late();
  r.late_waiting = rate->late_waiting();
  r.generator_lag = *rate->generator_lag();
  r.sent = r.lag.count();
}

// The workers' stats summed; the run ends at the last worker's end, or at the interrupt.
RunResult merge_workers(const Plan& plan, const std::vector<std::unique_ptr<Worker>>& workers,
                        std::int64_t start_ns, std::int64_t stopped_at) {
  std::vector<const WorkerStats*> stats;
  std::int64_t end = start_ns;
  for (const auto& w : workers) {
    stats.push_back(&w->stats());
    end = std::max(end, w->end_ns());
  }
  if (stopped_at != 0) end = stopped_at;
  return result_of(plan, stats, start_ns, end, stopped_at != 0);
}

// --start-at: sleeps until the wall clock reaches unix_start_ns (0: returns at once), in steps
// short enough to notice a stop request. False when a stop came first.
bool wait_for_start(std::int64_t unix_start_ns, StopSignal* stop) {
  constexpr std::int64_t kStepNs = 50'000'000;
  for (;;) {
    if (stop != nullptr && stop->stop_requested()) return false;
    const std::int64_t left = unix_start_ns - unix_ns();
    if (left <= 0) return true;
    const std::int64_t step = std::min(left, kStepNs);
    timespec ts{static_cast<time_t>(step / 1'000'000'000), static_cast<long>(step % 1'000'000'000)};
    ::nanosleep(&ts, nullptr);
  }
}

}  // namespace

RunResult result_of(const Plan& plan, std::span<const WorkerStats* const> stats,
                    std::int64_t start_ns, std::int64_t end_ns, bool interrupted) {
  const Config& config = plan.config;
  RunResult result = settings_of(plan, static_cast<std::uint32_t>(stats.size()));
  WorkerStats total(config.count_headers.size());
  for (const WorkerStats* s : stats)
    total.merge(*s);
  result.interrupted = interrupted;
  result.elapsed_ns = end_ns - start_ns;
  fill_result(result, total, config);
  const std::int64_t duration = config.effective_duration().count();
  std::int64_t send_window = result.elapsed_ns;
  if (!interrupted && duration > 0) send_window = std::min(send_window, duration);
  fill_rate(result, total, config, send_window);
  return result;
}

double RunResult::effective_rps() const {
  return elapsed_ns > 0 ? static_cast<double>(total_requests) / elapsed_seconds() : 0;
}

double RateResult::achieved_rps() const {
  return send_window_ns > 0 ? static_cast<double>(sent) * 1e9 / static_cast<double>(send_window_ns)
                            : 0;
}

bool RunResult::target_held() const {
  if (!rate) return true;
  const bool all_sent =
      static_cast<double>(rate->sent) >= 0.995 * static_cast<double>(rate->scheduled);
  return all_sent && rate->lag.percentile(99) <= RateStats::kLateNs;
}

std::string RunResult::late_cause() const {
  if (!rate || rate->late == 0) return {};
  const std::uint64_t waiting = rate->late_waiting;
  const std::uint64_t own = rate->late - waiting;
  std::string s;
  if (waiting > 0) {
    // A request waits for its own worker's connections only: with several workers, the others
    // may have had some free (the run measures no moment when all -c were busy at once).
    std::string busy = fmt::format(
        "all {} connections were still waiting for responses when they were due", clients);
    if (cores > 1) {
      const std::uint32_t fewest = clients / cores;
      const std::uint32_t most = fewest + (clients % cores == 0 ? 0 : 1);
      const std::string each =
          most == fewest ? fmt::format("{}", most) : fmt::format("{} or {}", fewest, most);
      busy = fmt::format(
          "every connection of their worker was still waiting for a response when they were "
          "due (-c {} is split over {} workers, {} each, and a worker sends only on its own)",
          clients, cores, each);
    }
    s = fmt::format(
        "{} of the late requests waited for a free connection: {}, so the server answered too "
        "slowly for -c {} to carry the rate (more connections tell a slow server from a small "
        "pool)",
        waiting, busy, clients);
  }
  if (own > 0) {
    if (!s.empty()) s += "; ";
    s += fmt::format(
        "{} {} late with a connection free: the generator itself fell behind (its CPU or its "
        "machine; more --cores or a lower rate)",
        own, own == 1 ? "was" : "were");
  }
  return s + ".";
}

void StopSignal::request_stop() {
  std::lock_guard lock(mutex_);
  requested_ = true;
  if (wake_) wake_();
}

bool StopSignal::stop_requested() const {
  std::lock_guard lock(mutex_);
  return requested_;
}

void StopSignal::on_stop(std::function<void()> wake) {
  std::lock_guard lock(mutex_);
  wake_ = std::move(wake);
  if (requested_ && wake_) wake_();
}

Expected<RunResult> run(const Config& config, const RunHooks& hooks) {
  auto plan = prepare(config);
  if (!plan) return plan.error();
  return run(*plan, hooks);
}

Expected<RunResult> run(const Plan& plan, const RunHooks& hooks) {
  net::Address address;
  if (plan.address) {
    address = *plan.address;
  } else {
    auto resolved = resolve_route(plan.route, plan.url);
    if (!resolved) return resolved.error();
    address = *resolved;
  }
  const Config& config = plan.config;
  ConnectionContext context = make_context(plan, address);
  const std::uint32_t count =
      std::min(config.cores, config.shard.connections_of(config.concurrency));
  SharedBudget budget(config.shard.share_of(config.max_requests), count);
  Monitor monitor;
  auto workers = make_workers(plan, context, budget, monitor, count);
  if (!workers) return workers.error();

  if (!wait_for_start(config.start_at_unix_ns, hooks.stop)) {
    return make_error("stopped before the --start-at time");
  }
  const std::int64_t start = mono_ns();
  const std::int64_t start_unix = unix_ns();
  const std::int64_t duration = config.effective_duration().count();
  const std::int64_t deadline = duration > 0 ? start + duration : 0;
  std::vector<std::thread> threads;
  try {
    for (auto& w : *workers)
      threads.emplace_back([&w, deadline, start] { w->run(deadline, start); });
  } catch (const std::system_error& e) {
    for (std::size_t i = 0; i < threads.size(); ++i)
      (*workers)[i]->interrupt();
    for (auto& t : threads)
      t.join();
    return make_error(std::string("cannot start a worker thread: ") + e.what());
  }
  if (hooks.stop) hooks.stop->on_stop([&monitor] { monitor.request_stop(); });
  if (hooks.live) hooks.live->attach(plan, *workers, start);
  std::optional<ProgressPrinter> printer;
  if (hooks.progress) printer.emplace(*hooks.progress, config, *workers, start);
  const std::int64_t stopped_at =
      supervise(monitor, *workers, printer ? &*printer : nullptr, hooks.progress_interval, start);
  if (hooks.stop) hooks.stop->on_stop(nullptr);
  for (auto& t : threads)
    t.join();

  RunResult result = merge_workers(plan, *workers, start, stopped_at);
  result.start_unix_ns = start_unix;
  if (plan.log) result.log_error = plan.log->error_line();
  if (hooks.live) {
    std::uint64_t begun = 0;
    for (const auto& w : *workers)
      begun += w->begun();
    hooks.live->finish(result, begun);  // before the workers go: detaches from them
  }
  return result;
}

}  // namespace stampede::loadgen
