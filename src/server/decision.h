// The answer rule of `stampede serve`, in one place for both protocols: the HTTP/1.1 Connection
// and the HTTP/2 H2Connection call these two functions, so that what decides a response
// (/count, /reset, ?delay=&status=&size=&close=, --delay, --error, --percent) cannot drift
// between them.
//
// Worker thread only (decide() counts the request on the worker and draws from its spread).
#pragma once

#include <cstdint>
#include <string_view>

#include "server/overrides.h"

namespace stampede::server {

class Worker;

enum class Kind : std::uint8_t { Normal, Count, Reset, Metrics };

// What a request's target asks for, read when its head is complete.
struct Target {
  Kind kind = Kind::Normal;
  Overrides overrides;
  std::string_view bad_override;  // a static message: answer 400 (not counted as served)
};

// `path` without its query; `query` after '?' (empty when none).
Target read_target(std::string_view path, std::string_view query);

// What a served request gets: its status, whether it is the configured error, and how long it
// waits before its answer.
struct Decision {
  int status = 200;
  bool canned_error = false;
  std::int64_t delay_ns = 0;
};

// A complete Normal request without a bad override: counts it as served (/count) and decides
// its answer.
Decision decide(const Target& target, Worker& worker);

}  // namespace stampede::server
