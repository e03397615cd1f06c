// Shared helpers of the server's integration tests: an in-process server on a free port.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <thread>

#include "raw_client.h"
#include "server/server.h"

namespace stampede::server::testing {

// Starts a server on 127.0.0.1, port 0, with `options` otherwise; fails the test if it cannot.
inline std::unique_ptr<Server> start_server(ServerOptions options = {}) {
  options.port = 0;
  if (options.cores == 0) options.cores = 1;
  auto server = Server::start(options);
  EXPECT_TRUE(server) << server.error().message;
  return server ? std::move(server.value()) : nullptr;
}

// Polls `condition` (a counter the server publishes) until true or `timeout`; a bounded wait
// for state that has no event to wait on, not a sleep standing in for synchronisation.
inline bool eventually(const std::function<bool()>& condition,
                       std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

inline std::int64_t elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               since)
      .count();
}

}  // namespace stampede::server::testing
