#include "cli/lab.h"

#include <iostream>

#include <fmt/format.h>

#include "cli/command_line.h"
#include "cli/lab_options.h"
#include "cli/report_output.h"
#include "lab/interrupt.h"
#include "lab/lab.h"
#include "lab/report.h"

namespace stampede::lab {
namespace {

// After the report: --metrics-linger, cut short by Ctrl-C.
void linger_after(const loadgen::MetricsSettings& settings, Interrupt& interrupt) {
  loadgen::StopSignal stop;
  interrupt.attach(stop);
  loadgen::linger(settings.linger, stop);
  interrupt.detach(stop);
}

// The lab and its report, with --metrics-listen's endpoint up from before the first instance
// starts (a bind failure is exit 2, nothing run) until the report, and --metrics-linger after it.
int run_and_report(const LabPlan& plan, const loadgen::MetricsSettings& settings) {
  const LabConfig& config = plan.config;
  LiveRuns live;
  std::unique_ptr<metrics::MetricsEndpoint> endpoint;  // after `live`: stopped before it goes
  if (settings.listen) {
    auto started = loadgen::start_metrics_endpoint(settings, [&live] { return live.render(); });
    if (!started) {
      print_error_line(started.error().message);
      return 2;
    }
    endpoint = std::move(started).value();
  }
  Interrupt interrupt;
  auto watcher = SignalWatcher::start(interrupt);  // before any other thread but the endpoint's
  if (!watcher) {
    print_error_line("lab: " + watcher.error().message);
    return 1;
  }
  auto result =
      run_lab(plan, interrupt, config.quiet ? nullptr : &std::cerr, endpoint ? &live : nullptr);
  if (!result) {
    if (interrupt.requested()) {
      fmt::print(stderr, "stampede: lab interrupted; every process it started is stopped\n");
    } else {
      print_error_line("lab: " + result.error().message);
    }
    return 1;
  }
  const ReportWriters<LabResult> writers{write_text, write_json, write_html};
  if (!print_reports(*result, writers, config.json, config.html_path, "lab: ")) return 1;
  if (endpoint) linger_after(settings, interrupt);
  return result->ok() ? 0 : 1;
}

}  // namespace

int cli_main(int argc, char** argv) {
  auto parsed = parse_command_line(std::vector<std::string>(argv, argv + argc));
  if (const std::optional<int> code = exit_before_run(parsed)) return *code;
  // What escapes the lab's run is a failed run (1), not bad input.
  return exit_on_exception(1, [&] { return run_and_report(parsed->plan, parsed->metrics); });
}

}  // namespace stampede::lab
