// The generator and the test server in the test's own process: must_run and start_server, shared
// by the loadgen and rate integration tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <utility>

#include "loadgen/runner.h"
#include "server/server.h"

namespace stampede::testing {

// Runs `config` (with `hooks`) and records a test failure, with the error's message, when run()
// refuses to start; then returns an empty RunResult so the caller's own checks fail too.
inline loadgen::RunResult must_run(const loadgen::Config& config,
                                   const loadgen::RunHooks& hooks = {}) {
  auto r = loadgen::run(config, hooks);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r).value() : loadgen::RunResult{};
}

// Starts the test server on a free loopback port (one worker unless `options` says otherwise);
// null, with a test failure recorded, when it cannot start. The caller stops it.
inline std::unique_ptr<server::Server> start_server(server::ServerOptions options = {}) {
  options.port = 0;
  if (options.cores == 0) options.cores = 1;
  auto s = server::Server::start(options);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  return s.ok() ? std::move(s).value() : nullptr;
}

}  // namespace stampede::testing
