// The load-test options the API's integration tests start from: a run against a server of the
// same process, over 4 keep-alive connections, with a 10 s request timeout (a bug fails the test
// instead of hanging it); and the count of one error code in a result.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "stampede/stampede.h"

namespace stampede::testing {

// The options of a run against `server` (its `path`); the test sets the rest.
inline LoadTestOptions options_for(const ServerHandle& server, const std::string& path = "/") {
  LoadTestOptions o;
  o.url = "http://127.0.0.1:" + std::to_string(server.port()) + path;
  o.concurrency = 4;
  o.keep_alive = true;
  o.timeout = std::chrono::seconds(10);
  return o;
}

// How many requests of `r` failed under `name` (0 when none did).
inline std::uint64_t error_count(const Result& r, const std::string& name) {
  auto it = r.error_codes.find(name);
  return it == r.error_codes.end() ? 0 : it->second;
}

}  // namespace stampede::testing
