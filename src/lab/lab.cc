#include "lab/lab.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "core/clock.h"
#include "lab/balancer_proc.h"
#include "lab/h2.h"
#include "lab/hang.h"
#include "lab/instances.h"
#include "lab/limit.h"
#include "lab/peer.h"
#include "lab/process.h"
#include "lab/runs.h"
#include "lab/sources.h"

namespace stampede::lab {
namespace {

using Direct = std::vector<std::optional<DirectLatency>>;

// Everything one lab holds while it runs; destroyed (processes stopped) when run_lab returns.
struct Bench {
  const LabPlan& lab;
  const LabConfig& config;  // lab.config
  Interrupt& interrupt;
  std::ostream* progress;
  InstancePool& pool;
  BalancerRunner& balancer;
  LiveRuns* live;  // --metrics-listen's runs; null without it
};

// The feed of the run labelled `labels`; null without --metrics-listen.
loadgen::LiveFeed* feed_of(const Bench& b, const RunLabels& labels) {
  return b.live == nullptr ? nullptr : &b.live->feed(labels);
}

// A scenario's run: its scenario's name and its row's label in the report.
RunLabels labels_of(const RunRecord& rec) {
  return RunLabels{std::string(scenario_name(rec.scenario)), rec.label(), {}};
}

loadgen::RunHooks live_hooks(const Bench& b, const RunRecord& rec) {
  loadgen::RunHooks hooks;
  hooks.live = feed_of(b, labels_of(rec));
  return hooks;
}

template <class... Args>
void say(const Bench& b, fmt::format_string<Args...> format, Args&&... args) {
  if (b.progress == nullptr) return;
  fmt::print(*b.progress, "lab: {}\n", fmt::format(format, std::forward<Args>(args)...));
  b.progress->flush();
}

void fill_outcome(RunRecord& rec, const loadgen::RunResult& r) {
  rec.requests = r.total_requests;
  rec.errors = r.total_errors;
  rec.error_codes = r.error_codes;
  rec.seconds = r.elapsed_seconds();
  rec.rps = r.effective_rps();
  rec.p50_ms = static_cast<double>(r.latency.percentile(50)) / 1e6;
  rec.p99_ms = static_cast<double>(r.latency.percentile(99)) / 1e6;
  for (const auto& p : r.latency.percentile_distribution())
    rec.latency.emplace_back(p.percentile, static_cast<double>(p.value_ns) / 1e6);
}

Expected<HeaderCounts> run_sticky(const Bench& b, const std::string& url, RunRecord& rec) {
  auto sessions = run_sessions(url, b.config.sessions, b.config.session_requests, b.interrupt,
                               b.live, labels_of(rec));
  if (!sessions) return sessions.error();
  loadgen::RunResult total;
  HeaderCounts headers;
  for (SessionResult& s : *sessions) {
    const loadgen::RunResult& r = s.result;
    total.total_requests += r.total_requests;
    total.total_errors += r.total_errors;
    total.elapsed_ns = std::max(total.elapsed_ns, r.elapsed_ns);
    total.latency.merge(r.latency);
    for (const auto& [code, n] : r.error_codes)
      total.error_codes[code] += n;
    SessionRow row{s.name, r.total_requests, r.total_errors, {}, {}};
    for (const auto& [name, values] : r.header_counts) {
      for (const auto& [value, n] : values) {
        headers[name][value] += n;
        if (name == kInstanceHeader) row.by_instance[value] += n;
        if (name == kBackendHeader) row.by_backend[value] += n;
      }
    }
    rec.sessions.push_back(std::move(row));
  }
  fill_outcome(rec, total);
  return headers;
}

Expected<HeaderCounts> run_outage_load(const Bench& b, const std::string& url, RunRecord& rec) {
  loadgen::Config config = make_load_config(b.config.load, url);
  config.max_duration = b.config.outage_duration;
  const std::size_t victim = b.lab.kill;
  auto outcome = run_outage(
      config, b.config.kill_after, [&] { b.pool.kill(victim); }, b.interrupt,
      feed_of(b, labels_of(rec)));
  if (!outcome) return outcome.error();
  fill_outcome(rec, outcome->result);
  if (outcome->kill_at_s) {
    rec.instances[victim].killed = true;
    OutageTiming t;
    t.killed = b.config.kill_instance;
    t.kill_at_s = *outcome->kill_at_s;
    t.resolution_s = outcome->resolution_s;
    t.run_s = rec.seconds;
    if (outcome->last_failure_s) {
      t.last_failure_after_kill_s = std::max(0.0, *outcome->last_failure_s - t.kill_at_s);
    }
    rec.outage = t;
  }
  return outcome->result.header_counts;
}

// The hang scenario's run: the instance stopped and continued by run_hang; the built-in
// balancer's /lb-stats watched for when it takes the instance out and brings it back.
Expected<HeaderCounts> run_hang_load(const Bench& b, const RunPlan& plan, const std::string& url,
                                     RunRecord& rec) {
  loadgen::Config config = make_load_config(b.config.load, url);
  config.max_duration = b.config.outage_duration;
  const std::size_t victim = b.lab.hang;
  const std::string& name = b.config.hang_instance;
  HangActions actions;
  actions.stop = [&] { b.pool.pause(victim); };
  actions.resume = [&] { b.pool.resume(victim); };
  const bool built_in = b.config.balancer.kind == BalancerKind::BuiltIn;
  if (built_in) {
    actions.up = [&]() -> std::optional<bool> {
      const auto flags = b.balancer.read_up_flags();
      const auto it = flags.find(name);
      return it == flags.end() ? std::nullopt : std::optional(it->second);
    };
  }
  auto outcome = run_hang(config, {b.config.kill_after, b.config.hang_for}, actions, b.interrupt,
                          feed_of(b, labels_of(rec)));
  if (!outcome) return outcome.error();
  fill_outcome(rec, outcome->result);
  std::optional<std::int64_t> backend, health;
  if (plan.backend_timeout) backend = plan.backend_timeout->count();
  if (built_in && plan.health && plan.health->count() > 0) {
    health = std::min<std::int64_t>(1000, plan.health->count());  // the balancer's default
  } else if (peer_of(b.config.balancer) == Peer::HAProxy && plan.health &&
             plan.health->count() > 0) {
    health = plan.health->count();  // examples/lab/haproxy.sh: no `timeout check`, so `inter`
  }
  if (outcome->stop_at_s) rec.hang = time_hang(*outcome, name, backend, health);
  return outcome->result.header_counts;
}

// The h2 scenario's run: a few HTTP/2 connections of many streams each (h2.h).
Expected<HeaderCounts> run_h2_load(const Bench& b, const std::string& url, RunRecord& rec) {
  const loadgen::Config config = h2_load_config(b.config, url);
  auto result = run_load(config, b.interrupt, live_hooks(b, rec));
  if (!result) return result.error();
  fill_outcome(rec, *result);
  rec.h2 = H2Load{config.concurrency, config.streams};
  return result->header_counts;
}

// The load of one run, by scenario; fills the record's outcome and returns the header counts.
Expected<HeaderCounts> drive(const Bench& b, const RunPlan& plan, const std::string& url,
                             RunRecord& rec) {
  switch (plan.scenario) {
    case ScenarioKind::Sticky:
      return run_sticky(b, url, rec);
    case ScenarioKind::Outage:
      return run_outage_load(b, url, rec);
    case ScenarioKind::Hang:
      return run_hang_load(b, plan, url, rec);
    case ScenarioKind::H2:
      return run_h2_load(b, url, rec);
    case ScenarioKind::Even:
    case ScenarioKind::Slow:
    case ScenarioKind::Limit:
      break;
  }
  auto result = run_load(make_load_config(b.config.load, url), b.interrupt, live_hooks(b, rec));
  if (!result) return result.error();
  fill_outcome(rec, *result);
  return result->header_counts;
}

// The end of a limit run: the balancer's view of its backends, then the balancer stopped, then
// the instances' counts (the capped one's once the balancer's connections to it are gone). Only
// stampede's own balancer is asked for /lb-stats here: another one (HAProxy, nginx) proxies the
// request to an instance, which counts it before its /count is read (one above x-instance).
Expected<RunRecord> finish_limit_run(const Bench& b, const HeaderCounts& headers, RunRecord rec) {
  std::map<std::string, bool> up;
  if (b.config.balancer.kind == BalancerKind::BuiltIn) up = b.balancer.read_up_flags();
  b.balancer.stop();
  fill_sources(rec, headers, read_counts_settled(b.pool, b.interrupt));
  for (InstanceRow& row : rec.instances)
    if (auto it = up.find(row.name); it != up.end()) row.balancer_up = it->second;
  return rec;
}

Expected<RunRecord> execute(const Bench& b, const RunPlan& plan, const Direct& direct) {
  RunRecord rec;
  rec.scenario = plan.scenario;
  rec.strategy = plan.strategy;
  rec.retries = plan.retries;
  if (plan.health) rec.health_ms = plan.health->count();
  for (std::size_t i = 0; i < b.pool.size(); ++i) {
    InstanceRow row;
    row.name = b.pool.name(i);
    row.delay_ms = b.pool.delay(i).count();
    if (direct[i]) {
      row.direct_p50_ms = direct[i]->p50_ms;
      row.direct_p99_ms = direct[i]->p99_ms;
    }
    if (b.pool.limit(i) > 0) row.max_connections = b.pool.limit(i);
    rec.instances.push_back(row);
  }
  b.balancer.set_retries(plan.retries);
  b.balancer.set_protocol(plan.scenario == ScenarioKind::H2 ? ClientProtocol::H2c
                                                            : ClientProtocol::Http1);
  auto url =
      b.balancer.start(plan.strategy, plan.health, b.pool, b.interrupt, plan.backend_timeout);
  if (!url) return url.error();
  if (auto r = b.pool.reset_counts(); !r) return r.error();
  auto headers = drive(b, plan, *url, rec);
  if (!headers) return headers.error();
  if (b.interrupt.requested()) return make_error("interrupted");
  if (plan.pool == Pool::Limit) {
    // The balancer's idle connections may hold the capped instance's every slot: its /count
    // would be refused. Read the balancer's view first, then stop it, then count.
    return finish_limit_run(b, *headers, std::move(rec));
  }
  fill_sources(rec, *headers, b.pool.read_counts());
  const bool someone_idle = std::any_of(rec.instances.begin(), rec.instances.end(),
                                        [](const InstanceRow& r) { return r.by_instance == 0; });
  if (someone_idle) {
    const auto up = b.balancer.read_up_flags();
    for (InstanceRow& row : rec.instances)
      if (auto it = up.find(row.name); it != up.end()) row.balancer_up = it->second;
  }
  b.balancer.stop();
  return rec;
}

// Enters (`on`) or leaves the state `pool` asks for: the slow instance restarted with the slow
// delay or its own, the capped instance restarted with its cap or without. Even: nothing.
Expected<void> set_pool_state(const Bench& b, Pool pool, bool on) {
  if (pool == Pool::Slow) {
    const std::size_t slow = b.lab.slow;
    const auto& spec = b.config.instances[slow];
    const auto delay = on ? b.config.slow_delay : spec.delay;
    say(b, "restarting instance {} with a {} ms delay", spec.name, delay.count());
    return b.pool.restart(slow, delay, b.interrupt);
  }
  if (pool == Pool::Limit) {
    const std::size_t capped = b.lab.limit;
    const std::uint32_t cap = on ? b.config.limit_connections : 0;
    if (on) {
      say(b, "restarting instance {} refusing past {} connections", b.config.limit_instance, cap);
    } else {
      say(b, "restarting instance {} without a connection cap", b.config.limit_instance);
    }
    return b.pool.set_limit(capped, cap, b.interrupt);
  }
  return {};
}

// Puts the pool in the state `pool` asks for; the direct latencies are measured again after a
// change (and the first time).
Expected<void> prepare_pool(const Bench& b, Pool pool, Pool& current, Direct& direct) {
  if (auto r = b.pool.revive(b.interrupt); !r) return r;
  if (pool != current) {
    if (auto r = set_pool_state(b, current, false); !r) return r;
    if (auto r = set_pool_state(b, pool, true); !r) return r;
    current = pool;
    direct.clear();
  }
  if (!direct.empty()) return {};
  for (std::size_t i = 0; i < b.pool.size(); ++i) {
    auto latency =
        probe_latency(b.pool.host_port(i), b.interrupt, feed_of(b, {"probe", b.pool.name(i), {}}));
    if (!latency) {
      return make_error(fmt::format("instance {}: {}", b.pool.name(i), latency.error().message));
    }
    direct.push_back(*latency);
  }
  return {};
}

std::string run_line(const RunRecord& rec) {
  std::string shares;
  const auto s = stampede::lab::shares(rec, share_source(rec));
  for (std::size_t i = 0; i < rec.instances.size(); ++i)
    shares += fmt::format(" {} {:.1f}%", rec.instances[i].name, s[i] * 100);
  return fmt::format("{:<24} {:>6} requests {:>6} failed {:>8.0f} req/s {}", rec.label(),
                     rec.requests, rec.errors, rec.rps, shares);
}

// --sweep-connections: the sweep through the balancer (the first load strategy, no health
// checks) on the even pool, then straight to the first instance.
Expected<SweepRecord> run_lab_sweep(const Bench& b, Pool& current, Direct& direct) {
  if (auto r = prepare_pool(b, Pool::Even, current, direct); !r) return r.error();
  SweepRecord rec;
  const auto& strategies = b.lab.load_strategies;
  rec.strategy = strategies.empty() ? std::string() : strategies.front();
  rec.instance = b.pool.name(0);
  rec.pool_size = b.pool.size();
  const bool external = b.config.balancer.kind == BalancerKind::External;
  const std::optional<std::chrono::milliseconds> off =
      external ? std::nullopt : std::optional(std::chrono::milliseconds(0));
  auto url = b.balancer.start(rec.strategy, off, b.pool, b.interrupt);
  if (!url) return url.error();
  say(b, "sweep through the balancer: {} connections", fmt::join(b.config.sweep, ","));
  auto pool = run_sweep_load(make_load_config(b.config.load, *url), b.config.sweep, b.interrupt,
                             feed_of(b, {"sweep", "balancer/" + rec.strategy, {}}));
  b.balancer.stop();
  if (!pool) return pool.error();
  rec.pool = std::move(pool).value();
  say(b, "sweep straight to instance {}", rec.instance);
  auto single = run_sweep_load(
      make_load_config(b.config.load, "http://" + b.pool.host_port(0) + "/"), b.config.sweep,
      b.interrupt, feed_of(b, {"sweep", "direct/" + rec.instance, {}}));
  if (!single) return single.error();
  rec.single = std::move(single).value();
  if (b.interrupt.requested()) return make_error("interrupted");
  return rec;
}

std::string plan_label(const RunPlan& plan) {
  std::string label(scenario_name(plan.scenario));
  return plan.strategy.empty() ? label : label + "/" + plan.strategy;
}

}  // namespace

Expected<LabResult> run_lab(const LabPlan& lab, Interrupt& interrupt, std::ostream* progress,
                            LiveRuns* live) {
  const LabConfig& config = lab.config;
  const std::int64_t start = mono_ns();
  auto dir = TempDir::create("stampede-lab");
  if (!dir) return dir.error();
  PoolOptions pool_options;
  pool_options.stampede_path = config.stampede_path;
  pool_options.work_dir = dir->path();
  pool_options.start_timeout = config.balancer.start_timeout;
  auto pool = InstancePool::start(config.instances, pool_options, interrupt);
  if (!pool) return pool.error();
  BalancerRunner balancer({config.balancer, lab.balancer_url, config.stampede_path, dir->path()});
  const Bench bench{lab, config, interrupt, progress, **pool, balancer, live};

  LabResult result;
  result.config = config;
  result.balancer = balancer.describe();
  for (std::size_t i = 0; i < (*pool)->size(); ++i)
    result.addresses.push_back((*pool)->host_port(i));
  say(bench, "{} instances on {}", (*pool)->size(), fmt::join(result.addresses, ", "));

  Pool current = Pool::Even;
  Direct direct;
  for (const RunPlan& plan : lab.runs) {
    if (interrupt.requested()) return make_error("interrupted");
    if (auto r = prepare_pool(bench, plan.pool, current, direct); !r) return r.error();
    auto record = execute(bench, plan, direct);
    if (!record) return make_error(plan_label(plan) + ": " + record.error().message);
    say(bench, "{}", run_line(*record));
    result.runs.push_back(std::move(record).value());
  }
  if (!config.sweep.empty()) {
    if (interrupt.requested()) return make_error("interrupted");
    auto sweep = run_lab_sweep(bench, current, direct);
    if (!sweep) return make_error("sweep: " + sweep.error().message);
    result.sweep = std::move(sweep).value();
  }
  result.findings = read_runs(result.runs, peer_of(config.balancer));
  if (result.sweep) result.findings.push_back(read_sweep(*result.sweep));
  result.wall_seconds = static_cast<double>(mono_ns() - start) / 1e9;
  return result;
}

}  // namespace stampede::lab
