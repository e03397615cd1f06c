// `stampede balance ...`: the balancer's command line into a BalancerConfig, and the subcommand
// that runs the balancer until SIGINT or SIGTERM.
#pragma once

#include <string>

#include "balancer/config.h"
#include "core/expected.h"

namespace stampede::balancer {

// The command line of `stampede balance` (argv[0] is "balance"). --config FILE is read first;
// options given on the command line override the file. `help` is set (and nothing validated)
// when --help was asked for; help_text then holds the usage.
struct CommandLine {
  BalancerConfig config;
  bool help = false;
  std::string help_text;
};
Expected<CommandLine> parse_command_line(int argc, const char* const* argv);

// argv[0] is "balance". Exit status: 0 after a signal, 2 for bad configuration (one line on
// stderr starting with "stampede: "), 1 for a failure at run time.
int cli_main(int argc, char** argv);

}  // namespace stampede::balancer
