#include "balancer/cli.h"

#include <signal.h>
#include <stdio.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "balancer/balancer.h"
#include "balancer/config.h"

namespace stampede::balancer {
namespace {

int fail(const std::string& message, int status) {
  std::fprintf(stderr, "stampede: %s\n", message.c_str());
  return status;
}

// Writes the port to `path` atomically (PATH.tmp, then rename), as `serve` does.
bool write_ready_file(const std::string& path, std::uint16_t port) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << port << "\n";
    if (!out) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

}  // namespace

int cli_main(int argc, char** argv) {
  auto parsed = parse_command_line(argc, argv);
  if (!parsed) return fail(parsed.error().message, 2);
  if (parsed->help) {
    std::fputs(parsed->help_text.c_str(), stdout);
    return 0;
  }
  const BalancerConfig& config = parsed->config;
  if (auto r = validate(config); !r) return fail(r.error().message, 2);

  // Signals are taken by sigwait() below; worker threads inherit the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  auto lb = Balancer::start(config);
  if (!lb) return fail(lb.error().message, 2);
  std::fprintf(stderr, "stampede balance: listening on port %u, %zu backends, strategy %s\n",
               static_cast<unsigned>((*lb)->port()), config.backends.size(),
               std::string(strategy_name(config.strategy)).c_str());
  if (!config.ready_file.empty() && !write_ready_file(config.ready_file, (*lb)->port())) {
    return fail("cannot write the ready file '" + config.ready_file + "'", 1);
  }
  int sig = 0;
  sigwait(&signals, &sig);
  (*lb)->stop();
  return 0;
}

}  // namespace stampede::balancer
