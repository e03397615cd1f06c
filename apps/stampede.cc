// stampede: one binary, one subcommand per job. Each subcommand's library owns its command line.
#include <string_view>

#include "loadgen/cli.h"
#include "server/cli.h"
#ifdef STAMPEDE_HAS_BALANCER
#include "balancer/cli.h"
#endif
#ifdef STAMPEDE_HAS_LAB
#include "lab/cli.h"
#endif

int main(int argc, char** argv) {
  std::string_view sub = argc > 1 ? argv[1] : "";
  if (sub == "serve") return stampede::server::cli_main(argc - 1, argv + 1);
#ifdef STAMPEDE_HAS_BALANCER
  if (sub == "balance") return stampede::balancer::cli_main(argc - 1, argv + 1);
#endif
#ifdef STAMPEDE_HAS_LAB
  if (sub == "lab") return stampede::lab::cli_main(argc - 1, argv + 1);
#endif
  return stampede::loadgen::cli_main(argc, argv);
}
