// `stampede serve [options] [port]`: the command line of the test server.
#pragma once

#include <string>
#include <vector>

#include "core/expected.h"
#include "server/plan.h"

namespace stampede::server {

// What the command line asks for: the server's plan plus what only the command does.
struct CliOptions {
  ServerPlan plan;         // prepared (after --help: not)
  std::string ready_file;  // write the bound port here once listening
  bool quiet = false;      // no per-second lines
  bool help = false;       // --help: print `help_text` and exit 0
  std::string help_text;
};

// Parses the arguments (args[0] is "serve") into options and prepares their plan (prepare():
// the checks, the TLS context, the body file). Errors are one line for the user, without the
// "stampede: " prefix.
Expected<CliOptions> parse_command_line(const std::vector<std::string>& args);

// The subcommand: parses, serves until SIGINT or SIGTERM, prints the totals. Exit code 0 on a
// clean stop, 2 on bad input (one line on stderr), 1 when the server cannot start.
int cli_main(int argc, char** argv);

}  // namespace stampede::server
