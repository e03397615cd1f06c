// `stampede lab [options]`: the load-balancing check of the guide as one command.
#pragma once

namespace stampede::lab {

// argv[0] is "lab". Prints the text report (or --json) on stdout, progress on stderr.
// Exit status: 0 when every check holds, 1 when a check fails or the lab could not run (one
// line on stderr naming what failed), 2 for bad usage (one line starting with "stampede: ").
int cli_main(int argc, char** argv);

}  // namespace stampede::lab
