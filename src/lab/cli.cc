#include "lab/cli.h"

#include <iostream>

#include <fmt/format.h>

#include "core/command_line.h"
#include "lab/interrupt.h"
#include "lab/lab.h"
#include "lab/options.h"
#include "lab/report.h"

namespace stampede::lab {

int cli_main(int argc, char** argv) {
  auto parsed = parse_command_line(std::vector<std::string>(argv, argv + argc));
  if (const std::optional<int> code = exit_before_run(parsed)) return *code;
  Interrupt interrupt;
  auto watcher = SignalWatcher::start(interrupt);  // before any other thread
  if (!watcher) {
    fmt::print(stderr, "stampede: lab: {}\n", watcher.error().message);
    return 1;
  }
  const LabConfig& config = parsed->config;
  auto result = run_lab(config, interrupt, config.quiet ? nullptr : &std::cerr);
  if (!result) {
    if (interrupt.requested()) {
      fmt::print(stderr, "stampede: lab interrupted; every process it started is stopped\n");
    } else {
      fmt::print(stderr, "stampede: lab: {}\n", result.error().message);
    }
    return 1;
  }
  if (config.json) {
    write_json(*result, std::cout);
  } else {
    write_text(*result, std::cout);
  }
  std::cout.flush();
  if (!config.html_path.empty()) {
    if (auto written = write_html(*result, config.html_path); !written) {
      fmt::print(stderr, "stampede: lab: {}\n", written.error().message);
      return 1;
    }
  }
  return result->ok() ? 0 : 1;
}

}  // namespace stampede::lab
