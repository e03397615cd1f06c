// STAMPEDE_TEST_IO=uring|epoll: the I/O backend a test run forces on what the test support starts
// (tests/CMakeLists.txt registers chosen suites a second time with STAMPEDE_TEST_IO=uring, so the
// io_uring paths of serve, balance and the generator run under the integration tests too).
// Unset, everything keeps its default (net::kDefaultIoBackend). The switch sits where the
// support starts things, and nowhere else:
// - in process: start_server (test_server.h), must_run (in_process.h) and the balancer tests'
//   start_balancer set their config's `io`;
// - as processes: ChildProcess (process.h), so run_stampede too, adds `--io NAME` to a command of
//   the stampede binary that runs loops (the generator, serve, balance) and names no --io itself.
// Any thread; reads the environment at each call.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "net/io_backend.h"

namespace stampede::testing {

// The backend STAMPEDE_TEST_IO names; nullopt when it is unset or empty. Throws
// std::runtime_error (failing the test) for any other value, so that a typo forces nothing
// silently.
std::optional<net::IoBackend> forced_io();

// `io`, or the forced backend when there is one.
inline net::IoBackend test_io(net::IoBackend io) {
  const auto forced = forced_io();
  return forced ? *forced : io;
}

// A copy of `config` (any config with an `io` field) with the forced backend, if any.
template <class Config>
Config with_test_io(Config config) {
  config.io = test_io(config.io);
  return config;
}

// `argv` (argv[0] the program) with `--io NAME` inserted when a backend is forced, argv[0] is the
// stampede binary, the subcommand runs event loops (the generator, serve, balance) and argv
// names no --io of its own; otherwise `argv` unchanged.
std::vector<std::string> with_forced_io(std::vector<std::string> argv);

}  // namespace stampede::testing
