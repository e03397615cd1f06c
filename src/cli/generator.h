// The load generator's command line: `stampede [options] URL`, loadtest 8's flags plus ours.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cli/metrics_options.h"
#include "core/expected.h"
#include "loadgen/capacity.h"
#include "loadgen/options.h"
#include "loadgen/plan.h"

namespace stampede::loadgen {

struct CliRequest {
  enum class Action { Run, Help, Version };
  Action action = Action::Run;
  Plan plan;             // Run: prepared, its scripts attached as hooks
  CliSettings settings;  // Run: the outputs, thresholds and scripts
  std::string text;      // Help: the help text
  // Run with --sweep-connections: the connection count of each step (cli/sweep.h); empty: one run.
  std::vector<std::uint32_t> sweep;
  std::optional<CapacityParams> find_max;  // Run with --find-max: a capacity search instead
  MetricsSettings metrics;                 // --metrics-listen, --metrics-linger
};

// Parses argv (argv[0] is the program; options before or after the URL), fills what it does
// not give from `rc_dir`/.loadtestrc, prepares the run (plan.h) and loads its scripts. Errors
// are one line for the user, without "stampede: ".
Expected<CliRequest> parse_command_line(int argc, const char* const* argv,
                                        const std::filesystem::path& rc_dir);

// The subcommand's entry point, for the binary's main: parses, runs with progress on stderr
// (unless --quiet) and Ctrl-C/SIGTERM stopping the run early, prints the report (text or
// --json) on stdout and --html to its file; with --find-max, the capacity search (cli/find_max.h
// says its exit statuses). Returns 0 after a run (whatever its errors), 3 when
// a threshold (--max-p99, --max-error-rate, --min-rps) was crossed (one line each on stderr),
// 2 for bad input (one line on stderr), 1 when the run cannot start or --html cannot be written.
// Blocks SIGINT and SIGTERM for the rest of the process (they are received by a thread of its own).
int cli_main(int argc, char** argv);

}  // namespace stampede::loadgen
