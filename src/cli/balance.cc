#include "cli/balance.h"

#include <signal.h>
#include <stdio.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "balancer/balancer.h"
#include "balancer/config.h"
#include "balancer/plan.h"
#include "cli/command_line.h"
#include "core/fd_limit.h"
#include "core/ready_file.h"

namespace stampede::balancer {
namespace {

int fail(const std::string& message, int status) {
  print_error_line(message);
  return status;
}

}  // namespace

Expected<CommandLine> parse_command_line(int argc, const char* const* argv) {
  CLI::App app{"stampede balance: an HTTP load balancer", "stampede balance"};
  app.footer("MS: a number of milliseconds, or a duration with its unit (200ms, 2s).");
  std::string config_path;
  std::vector<std::string> backends;
  std::map<std::string, std::string, std::less<>> raw;
  app.add_option(
         "--config", config_path,
         "JSON file with the keys of the long options; options given here win; default none")
      ->type_name("PATH");
  app.add_option(
         "--backend", backends,
         "A backend to send requests to, repeatable (https:// for TLS to it; weight 1..256, "
         "default 1); default none: "
         "give at least one here or in --config")
      ->type_name("NAME=[https://]HOST:PORT[,weight=N]");
  bool backend_insecure = false;
  app.add_flag("--backend-insecure", backend_insecure,
               "https backends: accept any certificate (self-signed, expired, other host); "
               "default: verify");
  // The settings come with their help from one table (balancer/config.h); the values are
  // applied in the order of their names, after --config.
  for (const SettingHelp& setting : describe_settings()) {
    app.add_option("--" + setting.key, raw[setting.key], setting.description)
        ->type_name(setting.value_name);
  }
  std::optional<std::string> io;
  add_io_option(app, io);
  CommandLine out;
  const Expected<bool> help = parse_cli_into(out, app, argc, argv);
  if (!help) return help.error();
  if (*help) return out;
  if (auto r = refuse_empty_values(app); !r) return r.error();
  if (!config_path.empty()) {
    auto file = load_config_file(config_path);
    if (!file) return file.error();
    out.config = std::move(*file);
  }
  for (const auto& [key, value] : raw) {
    if (app.count("--" + key) == 0) continue;
    if (auto r = apply_setting(out.config, key, value); !r) return r.error();
  }
  if (backend_insecure) out.config.backend_insecure = true;
  if (!backends.empty()) out.config.backends.clear();
  for (const std::string& text : backends) {
    auto spec = parse_backend_spec(text);
    if (!spec) return spec.error();
    out.config.backends.push_back(std::move(*spec));
  }
  auto backend = parse_io_option(io);
  if (!backend) return backend.error();
  out.config.io = *backend;
  return out;
}

int cli_main(int argc, char** argv) {
  auto parsed = parse_command_line(argc, argv);
  if (const std::optional<int> code = exit_before_run(parsed)) return *code;
  // Every refusal of the configuration is prepare()'s: bad input, exit 2.
  auto plan = prepare(std::move(parsed->config));
  if (!plan) return fail(plan.error().message, 2);

  // Signals are taken by sigwait() below; worker threads inherit the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  const std::uint64_t fd_limit = raise_fd_limit();

  plan->config.io = settle_io_backend(plan->config.io);
  auto lb = Balancer::start(std::move(*plan));
  if (!lb) return fail(lb.error().message, 2);
  const BalancerConfig& config = (*lb)->config();
  std::string notes = config.max_connections > 0
                          ? ", max connections " + std::to_string(config.max_connections)
                          : std::string();
  if (!config.tls_cert.empty()) notes += ", TLS (ALPN h2, http/1.1)";
  std::fprintf(stderr,
               "stampede balance: listening on port %u, %zu backends, strategy %s, descriptor "
               "limit %llu%s\n",
               static_cast<unsigned>((*lb)->port()), config.backends.size(),
               std::string(strategy_name(config.strategy)).c_str(),
               static_cast<unsigned long long>(fd_limit), notes.c_str());
  if (auto ready = config.ready_file.empty() ? Expected<void>{}
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
