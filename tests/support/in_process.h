// The generator and the test server in the test's own process: one_core_config and must_run
// here, start_server from test_server.h, shared by the loadgen, rate, ws and tls integration tests.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "loadgen/runner.h"
#include "support/test_io.h"
#include "support/test_server.h"

namespace stampede::testing {

// A generator Config for a test's run: `requests` requests (or messages) to `url` over `clients`
// connections on one core, each request given up after `timeout`.
inline loadgen::Config one_core_config(std::string url, std::uint64_t requests,
                                       std::uint32_t clients, std::chrono::nanoseconds timeout) {
  loadgen::Config c;
  c.url = std::move(url);
  c.cores = 1;
  c.max_requests = requests;
  c.concurrency = clients;
  c.timeout = timeout;
  return c;
}

// Runs `config` (with `hooks`) and records a test failure, with the error's message, when run()
// refuses to start; then returns an empty RunResult so the caller's own checks fail too.
// STAMPEDE_TEST_IO may force the generator's backend (test_io.h).
inline loadgen::RunResult must_run(const loadgen::Config& config,
                                   const loadgen::RunHooks& hooks = {}) {
  auto r = loadgen::run(with_test_io(config), hooks);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r).value() : loadgen::RunResult{};
}

// How many requests of `r` ended with the error code `name` (0 when none did).
inline std::uint64_t error_count(const loadgen::RunResult& r, const std::string& name) {
  auto it = r.error_codes.find(name);
  return it == r.error_codes.end() ? 0 : it->second;
}

}  // namespace stampede::testing
