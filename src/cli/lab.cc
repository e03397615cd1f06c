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

int run_and_report(const LabPlan& plan) {
  const LabConfig& config = plan.config;
  Interrupt interrupt;
  auto watcher = SignalWatcher::start(interrupt);  // before any other thread
  if (!watcher) {
    print_error_line("lab: " + watcher.error().message);
    return 1;
  }
  auto result = run_lab(plan, interrupt, config.quiet ? nullptr : &std::cerr);
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
  return result->ok() ? 0 : 1;
}

}  // namespace

int cli_main(int argc, char** argv) {
  auto parsed = parse_command_line(std::vector<std::string>(argv, argv + argc));
  if (const std::optional<int> code = exit_before_run(parsed)) return *code;
  // What escapes the lab's run is a failed run (1), not bad input.
  return exit_on_exception(1, [&] { return run_and_report(parsed->plan); });
}

}  // namespace stampede::lab
