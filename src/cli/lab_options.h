// The command line of `stampede lab` into a LabPlan (CLI11 splits, core/units converts into a
// LabConfig, lab::prepare() checks it and builds the plan). No I/O.
#pragma once

#include <string>
#include <vector>

#include "cli/metrics_options.h"
#include "core/expected.h"
#include "lab/config.h"
#include "lab/plan.h"

namespace stampede::lab {

struct CommandLine {
  LabPlan plan;                      // prepare()'s: what `stampede lab` runs
  loadgen::MetricsSettings metrics;  // --metrics-listen, --metrics-linger
  bool help = false;                 // --help: print help_text, exit 0
  std::string help_text;
};

// args[0] is "lab". Errors are one line without the "stampede: " prefix.
Expected<CommandLine> parse_command_line(const std::vector<std::string>& args);

// "a=127.0.0.1:9746" (IPv6: "a=[::1]:9746"); port 0 means a free one.
Expected<InstanceSpec> parse_instance(std::string_view text);

}  // namespace stampede::lab
