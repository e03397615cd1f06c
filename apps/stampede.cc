// stampede: one binary, one subcommand per job. Each command line lives in src/cli, above the
// engine it drives.
#include <string_view>

#include "cli/balance.h"
#include "cli/command_line.h"
#include "cli/compare.h"
#include "cli/generator.h"
#include "cli/lab.h"
#include "cli/merge.h"
#include "cli/mpi_handoff.h"
#include "cli/serve.h"

namespace {

int dispatch(int argc, char** argv) {
  std::string_view sub = argc > 1 ? argv[1] : "";
  if (sub == "serve") return stampede::server::cli_main(argc - 1, argv + 1);
  if (sub == "balance") return stampede::balancer::cli_main(argc - 1, argv + 1);
  if (sub == "lab") return stampede::lab::cli_main(argc - 1, argv + 1);
  if (sub == "merge") return stampede::loadgen::merge_main(argc - 1, argv + 1);
  if (sub == "compare") return stampede::loadgen::compare_main(argc - 1, argv + 1);
  // A rank of mpirun: the generator that links MPI takes over (cli/mpi_handoff.h).
  if (stampede::loadgen::launched_by_mpirun()) return stampede::loadgen::exec_stampede_mpi(argv);
  return stampede::loadgen::cli_main(argc, argv);
}

}  // namespace

// No exception leaves the binary: one that escapes a subcommand's parsing or start-up is one
// line on stderr and exit status 2 (the generator and the lab guard their runs themselves, with
// the status of a failed run).
int main(int argc, char** argv) {
  return stampede::exit_on_exception(2, [&] { return dispatch(argc, argv); });
}
