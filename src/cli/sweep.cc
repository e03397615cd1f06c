#include "cli/sweep.h"

#include <iostream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "cli/report_output.h"
#include "core/error_line.h"
#include "loadgen/report/sweep.h"
#include "loadgen/sweep.h"

namespace stampede::loadgen {

Expected<std::vector<std::uint32_t>> sweep_steps(const std::string& text, const Plan& plan,
                                                 const CliSettings& settings,
                                                 bool connections_given) {
  auto steps = parse_sweep_steps(text);
  if (!steps) return steps.error();
  const auto refuse = [](const char* what) {
    return make_error(fmt::format("--sweep-connections cannot go with {}", what));
  };
  if (plan.config.rps > 0) return refuse("--rps: each step is a closed-loop run");
  if (connections_given) return refuse("-c: each step sets the connections");
  if (!plan.config.shard.whole()) return refuse("--shard");
  if (!settings.save.empty()) return refuse("--save");
  if (settings.thresholds.any()) return refuse("--max-p99, --max-error-rate or --min-rps");
  if (plan.websocket()) return refuse("a ws:// or wss:// URL");
  return steps;
}

int sweep_and_report(Plan& plan, const std::vector<std::uint32_t>& steps,
                     const CliSettings& settings, StopSignal& stop) {
  SweepHooks hooks;
  hooks.run.progress = settings.quiet ? nullptr : &std::cerr;
  hooks.run.stop = &stop;
  if (!settings.quiet) {
    hooks.on_step = [](const SweepStep& s) {
      fmt::print(std::cerr, "sweep: {} connections: {:.1f} req/s, p50 {:.3f} ms, p99 {:.3f} ms\n",
                 s.connections, s.rps, s.p50_ms, s.p99_ms);
    };
  }
  auto sweep = run_sweep(plan, steps, hooks);
  if (!sweep) {
    print_error_line(sweep.error().message);
    return 1;
  }
  const ReportWriters<SweepResult> writers{write_sweep_text, write_sweep_json, write_sweep_html};
  return print_reports(*sweep, writers, settings.json, settings.html) ? 0 : 1;
}

}  // namespace stampede::loadgen
