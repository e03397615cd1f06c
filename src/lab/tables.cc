#include "lab/tables.h"

#include <fmt/format.h>

#include "lab/findings.h"
#include "lab/h2.h"
#include "lab/sources.h"

namespace stampede::lab {
namespace {

std::string ms(double v) {
  return v < 10 ? fmt::format("{:.2f} ms", v) : fmt::format("{:.1f} ms", v);
}

std::string percent(double share) {
  return fmt::format("{:.1f}%", share * 100);
}

std::string run_name(const RunRecord& run) {
  if ((run.scenario == ScenarioKind::Outage || run.scenario == ScenarioKind::Hang) &&
      run.health_ms) {
    return *run.health_ms == 0 ? std::string("health off")
                               : fmt::format("health {} ms", *run.health_ms);
  }
  const std::string name = run.strategy.empty() ? std::string("(as configured)") : run.strategy;
  return run.retries ? fmt::format("{} retries={}", name, *run.retries) : name;
}

void add_instance_rows(const RunRecord& run, report::Table& table) {
  const Source source = share_source(run);
  const std::vector<double> s = shares(run, source);
  for (std::size_t i = 0; i < run.instances.size(); ++i) {
    const InstanceRow& row = run.instances[i];
    std::vector<std::string> cells;
    cells.push_back(i == 0 ? run_name(run) : "");
    cells.push_back(row.name + (row.killed ? " (killed)" : "") +
                    (row.max_connections ? fmt::format(" (cap {})", *row.max_connections) : ""));
    cells.push_back(fmt::format("{} ms", row.delay_ms));
    cells.push_back(row.served ? std::to_string(*row.served) : "-");
    cells.push_back(std::to_string(row.by_instance));
    cells.push_back(run.backend_header ? std::to_string(row.by_backend) : "-");
    cells.push_back(percent(s[i]));
    cells.push_back(row.direct_p50_ms ? ms(*row.direct_p50_ms) : "-");
    if (i == 0) {
      cells.push_back(fmt::format("{:.0f}", run.rps));
      cells.push_back(ms(run.p50_ms));
      cells.push_back(ms(run.p99_ms));
      cells.push_back(fmt::format("{} of {}", run.errors, run.requests));
    } else {
      cells.resize(cells.size() + 4);  // run-wide columns: on the run's first row only
    }
    table.rows.push_back(std::move(cells));
  }
}

report::Table instance_table(const LabResult& result, ScenarioKind kind) {
  report::Table table;
  table.title = scenario_title(result, kind);
  table.header = {
      kind == ScenarioKind::Outage || kind == ScenarioKind::Hang ? "health" : "strategy",
      "instance",
      "delay",
      "/count",
      "x-instance",
      "x-backend",
      "share",
      "direct p50",
      "req/s",
      "p50",
      "p99",
      "failed"};
  for (const RunRecord& run : result.runs)
    if (run.scenario == kind) add_instance_rows(run, table);
  return table;
}

// Slow against even, per strategy: throughput and the slow member's share side by side.
report::Table slow_table(const LabResult& result) {
  report::Table table;
  table.title = "slow against even, per strategy";
  table.header = {"strategy",    "even req/s",       "slow req/s",      "slow/even",
                  "slow member", "its share (even)", "its share (slow)"};
  for (const RunRecord& slow : result.runs) {
    if (slow.scenario != ScenarioKind::Slow) continue;
    const RunRecord* even = nullptr;
    for (const RunRecord& r : result.runs)
      if (r.scenario == ScenarioKind::Even && r.strategy == slow.strategy) even = &r;
    const std::size_t idx = [&] {
      for (std::size_t i = 0; i < slow.instances.size(); ++i)
        if (slow.instances[i].name == result.config.slow_instance) return i;
      return std::size_t{0};
    }();
    const double slow_share = shares(slow, share_source(slow))[idx];
    table.rows.push_back(
        {run_name(slow), even ? fmt::format("{:.0f}", even->rps) : "-",
         fmt::format("{:.0f}", slow.rps),
         even && even->rps > 0 ? fmt::format("x{:.2f}", slow.rps / even->rps) : "-",
         result.config.slow_instance, even ? percent(shares(*even, share_source(*even))[idx]) : "-",
         percent(slow_share)});
  }
  return table;
}

report::Table sessions_table(const LabResult& result) {
  report::Table table;
  table.title = "sticky — per session, the instances that served it";
  table.header = {"session", "requests", "failed", "x-instance", "x-backend"};
  const auto list = [](const std::map<std::string, std::uint64_t>& m) {
    std::string out;
    for (const auto& [name, n] : m)
      out += fmt::format("{}{} {}", out.empty() ? "" : ", ", name, n);
    return out.empty() ? std::string("-") : out;
  };
  for (const RunRecord& run : result.runs) {
    if (run.scenario != ScenarioKind::Sticky) continue;
    for (const SessionRow& s : run.sessions) {
      table.rows.push_back({s.name, std::to_string(s.requests), std::to_string(s.errors),
                            list(s.by_instance), list(s.by_backend)});
    }
    const auto best = best_split(static_cast<std::uint32_t>(run.sessions.size()),
                                 static_cast<std::uint32_t>(run.instances.size()));
    std::string split;
    for (std::uint32_t n : best)
      split += fmt::format("{}{}", split.empty() ? "" : "/", n);
    table.rows.push_back({"best split", split + " sessions per instance", "", "", ""});
  }
  return table;
}

report::Table outage_table(const LabResult& result) {
  report::Table table;
  table.title = "outage — failures per health interval";
  table.header = {"health", "requests", "failed", "failed share", "kill at", "kill to last failure",
                  "codes"};
  for (const RunRecord& run : result.runs) {
    if (run.scenario != ScenarioKind::Outage) continue;
    std::string codes;
    for (const auto& [code, n] : run.error_codes)
      codes += fmt::format("{}{} x{}", codes.empty() ? "" : ", ", code, n);
    const auto& t = run.outage;
    table.rows.push_back(
        {run_name(run), std::to_string(run.requests), std::to_string(run.errors),
         run.requests ? fmt::format("{:.2f}%", 100.0 * run.errors / run.requests) : "-",
         t ? fmt::format("{:.2f} s", t->kill_at_s) : "not killed",
         t && t->last_failure_after_kill_s
             ? fmt::format("{:.2f} s (±{:.2f})", *t->last_failure_after_kill_s, t->resolution_s)
             : "-",
         codes.empty() ? "-" : codes});
  }
  return table;
}

bool ran(const LabResult& result, ScenarioKind kind) {
  for (const RunRecord& r : result.runs)
    if (r.scenario == kind) return true;
  return false;
}

// The sweep, the pool and the single instance side by side, one row per connection count.
report::Table sweep_table(const SweepRecord& sweep) {
  report::Table t{
      fmt::format("sweep — the pool{} against instance {} alone",
                  sweep.strategy.empty() ? "" : " (" + sweep.strategy + ")", sweep.instance),
      {"connections", "pool req/s", "pool p50", "pool p99", "pool failed", "single req/s",
       "single p50", "single p99", "single failed"},
      {}};
  const std::size_t rows = std::max(sweep.pool.size(), sweep.single.size());
  for (std::size_t i = 0; i < rows; ++i) {
    std::vector<std::string> cells;
    const loadgen::SweepStep& any = i < sweep.pool.size() ? sweep.pool[i] : sweep.single[i];
    cells.push_back(std::to_string(any.connections));
    for (const auto* steps : {&sweep.pool, &sweep.single}) {
      if (i >= steps->size()) {
        cells.insert(cells.end(), {"-", "-", "-", "-"});
        continue;
      }
      const loadgen::SweepStep& s = (*steps)[i];
      cells.push_back(fmt::format("{:.0f}", s.rps));
      cells.push_back(ms(s.p50_ms));
      cells.push_back(ms(s.p99_ms));
      cells.push_back(std::to_string(s.errors));
    }
    t.rows.push_back(std::move(cells));
  }
  return t;
}

}  // namespace

std::string scenario_title(const LabResult& result, ScenarioKind kind) {
  const LabConfig& c = result.config;
  switch (kind) {
    case ScenarioKind::Even:
      return "even — the pool as given, per strategy";
    case ScenarioKind::Slow:
      return fmt::format("slow — {} delayed {} ms, everything else unchanged", c.slow_instance,
                         c.slow_delay.count());
    case ScenarioKind::Sticky:
      return fmt::format("sticky — {} sessions x {} requests, each with its own x-session",
                         c.sessions, c.session_requests);
    case ScenarioKind::Outage:
      return fmt::format("outage — {} killed {:.1f} s into a {:.1f} s run", c.kill_instance,
                         std::chrono::duration<double>(c.kill_after).count(),
                         std::chrono::duration<double>(c.outage_duration).count());
    case ScenarioKind::Limit:
      return fmt::format("limit — {} resets each connection past {}, per strategy and retries",
                         c.limit_instance, c.limit_connections);
    case ScenarioKind::Hang:
      return fmt::format(
          "hang — {} stopped (SIGSTOP) {:.1f} s into a {:.1f} s run for {:.1f} s, "
          "backend timeout {} ms",
          c.hang_instance, std::chrono::duration<double>(c.kill_after).count(),
          std::chrono::duration<double>(c.outage_duration).count(),
          std::chrono::duration<double>(c.hang_for).count(), c.backend_timeout.count());
    case ScenarioKind::H2:
      return fmt::format(
          "h2 — {} HTTP/2 connections (h2c) x {} streams: per request or per connection?",
          h2_load_of(c).connections, h2_load_of(c).streams);
  }
  return "";
}

std::vector<report::Table> scenario_tables(const LabResult& result) {
  std::vector<report::Table> tables;
  for (ScenarioKind kind : all_scenarios()) {
    if (!ran(result, kind)) continue;
    tables.push_back(instance_table(result, kind));
    if (kind == ScenarioKind::Slow) tables.push_back(slow_table(result));
    if (kind == ScenarioKind::Sticky) tables.push_back(sessions_table(result));
    if (kind == ScenarioKind::Outage) tables.push_back(outage_table(result));
  }
  if (result.sweep) tables.push_back(sweep_table(*result.sweep));
  return tables;
}

}  // namespace stampede::lab
