// The test server in the test's own process, on a free loopback port: start_server, shared by
// the server, loadgen, rate, ws and tls integration tests (through in_process.h or directly).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <utility>

#include "server/plan.h"
#include "server/server.h"
#include "support/test_io.h"

namespace stampede::testing {

// Starts the test server on 127.0.0.1, port 0 (one worker unless `options` says otherwise);
// null, with a test failure recorded (the error's message), when it cannot start. The caller
// stops it (or lets the unique_ptr do so). STAMPEDE_TEST_IO may force its backend (test_io.h).
inline std::unique_ptr<server::Server> start_server(server::ServerOptions options = {}) {
  options.port = 0;
  options.io = test_io(options.io);
  if (options.cores == 0) options.cores = 1;
  auto plan = server::prepare(std::move(options));
  EXPECT_TRUE(plan.ok()) << (plan.ok() ? "" : plan.error().message);
  if (!plan.ok()) return nullptr;
  auto s = server::Server::start(std::move(plan).value());
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  return s.ok() ? std::move(s).value() : nullptr;
}

// start_server with the options `set` changes from the defaults (a lambda that sets a field or
// two, in place of a named ServerOptions).
inline std::unique_ptr<server::Server> start_server_with(
    const std::function<void(server::ServerOptions&)>& set) {
  server::ServerOptions options;
  set(options);
  return start_server(std::move(options));
}

}  // namespace stampede::testing
