#include "balancer/cli.h"

#include <signal.h>
#include <stdio.h>

#include <cstdio>
#include <string>

#include "balancer/balancer.h"
#include "balancer/config.h"
#include "core/command_line.h"
#include "core/fd_limit.h"
#include "core/ready_file.h"

namespace stampede::balancer {
namespace {

int fail(const std::string& message, int status) {
  print_error_line(message);
  return status;
}

}  // namespace

int cli_main(int argc, char** argv) {
  auto parsed = parse_command_line(argc, argv);
  if (const std::optional<int> code = exit_before_run(parsed)) return *code;
  const BalancerConfig& config = parsed->config;
  if (auto r = validate(config); !r) return fail(r.error().message, 2);

  // Signals are taken by sigwait() below; worker threads inherit the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  const std::uint64_t fd_limit = raise_fd_limit();

  auto lb = Balancer::start(config);
  if (!lb) return fail(lb.error().message, 2);
  const std::string cap = config.max_connections > 0
                              ? ", max connections " + std::to_string(config.max_connections)
                              : std::string();
  std::fprintf(stderr,
               "stampede balance: listening on port %u, %zu backends, strategy %s, descriptor "
               "limit %llu%s\n",
               static_cast<unsigned>((*lb)->port()), config.backends.size(),
               std::string(strategy_name(config.strategy)).c_str(),
               static_cast<unsigned long long>(fd_limit), cap.c_str());
  if (auto ready = config.ready_file.empty() ? Result<void>{}
                                             : write_ready_file(config.ready_file, (*lb)->port());
      !ready) {
    return fail(ready.error().message, 1);
  }
  int sig = 0;
  sigwait(&signals, &sig);
  (*lb)->stop();
  return 0;
}

}  // namespace stampede::balancer
