// stampede: one binary, one subcommand per job. Each subcommand's library owns its command line.
#include <string_view>

#include "balancer/cli.h"
#include "lab/cli.h"
#include "loadgen/cli.h"
#include "server/cli.h"

int main(int argc, char** argv) {
  std::string_view sub = argc > 1 ? argv[1] : "";
  if (sub == "serve") return stampede::server::cli_main(argc - 1, argv + 1);
  if (sub == "balance") return stampede::balancer::cli_main(argc - 1, argv + 1);
  if (sub == "lab") return stampede::lab::cli_main(argc - 1, argv + 1);
  return stampede::loadgen::cli_main(argc, argv);
}
