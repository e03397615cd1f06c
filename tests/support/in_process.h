// The generator and the test server in the test's own process: must_run here, start_server from
// test_server.h, shared by the loadgen, rate, ws and tls integration tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <utility>

#include "loadgen/runner.h"
#include "support/test_server.h"

namespace stampede::testing {

// Runs `config` (with `hooks`) and records a test failure, with the error's message, when run()
// refuses to start; then returns an empty RunResult so the caller's own checks fail too.
inline loadgen::RunResult must_run(const loadgen::Config& config,
                                   const loadgen::RunHooks& hooks = {}) {
  auto r = loadgen::run(config, hooks);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r).value() : loadgen::RunResult{};
}

}  // namespace stampede::testing
