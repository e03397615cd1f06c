// stampede: one binary, one subcommand per job. Each command line lives in src/cli, above the
// engine it drives.
#include "cli/command_line.h"
#include "cli/mpi_handoff.h"
#include "cli/subcommands.h"

namespace {

int dispatch(int argc, char** argv) {
  // The subcommands are one table (cli/subcommands.h), which the manual pages are written from.
  const stampede::Subcommand& sub = stampede::find_subcommand(argc > 1 ? argv[1] : "");
  if (!sub.name.empty()) return sub.main(argc - 1, argv + 1);
  // A rank of mpirun: the generator that links MPI takes over (cli/mpi_handoff.h).
  if (stampede::loadgen::launched_by_mpirun()) return stampede::loadgen::exec_stampede_mpi(argv);
  return sub.main(argc, argv);
}

}  // namespace

// No exception leaves the binary: one that escapes a subcommand's parsing or start-up is one
// line on stderr and exit status 2 (the generator and the lab guard their runs themselves, with
// the status of a failed run).
int main(int argc, char** argv) {
  return stampede::exit_on_exception(2, [&] { return dispatch(argc, argv); });
}
