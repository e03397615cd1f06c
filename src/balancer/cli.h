// `stampede balance ...`: parses the command line, runs the balancer until SIGINT or SIGTERM.
#pragma once

namespace stampede::balancer {

// argv[0] is "balance". Exit status: 0 after a signal, 2 for bad configuration (one line on
// stderr starting with "stampede: "), 1 for a failure at run time.
int cli_main(int argc, char** argv);

}  // namespace stampede::balancer
