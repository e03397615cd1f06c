// stampede: one binary, one subcommand per job. Each subcommand's library owns its command line.
#include <cstdio>
#include <cstring>
#include <string_view>

#if __has_include("loadgen/cli.h")
#include "loadgen/cli.h"
#endif
#if __has_include("server/cli.h")
#include "server/cli.h"
#endif
#if __has_include("balancer/cli.h")
#include "balancer/cli.h"
#endif
#if __has_include("lab/cli.h")
#include "lab/cli.h"
#endif

int main(int argc, char** argv) {
  std::string_view sub = argc > 1 ? argv[1] : "";
#if __has_include("server/cli.h")
  if (sub == "serve") return stampede::server::cli_main(argc - 1, argv + 1);
#endif
#if __has_include("balancer/cli.h")
  if (sub == "balance") return stampede::balancer::cli_main(argc - 1, argv + 1);
#endif
#if __has_include("lab/cli.h")
  if (sub == "lab") return stampede::lab::cli_main(argc - 1, argv + 1);
#endif
#if __has_include("loadgen/cli.h")
  return stampede::loadgen::cli_main(argc, argv);
#else
  std::fprintf(stderr, "stampede: the load generator is not built\n");
  return 2;
#endif
}
