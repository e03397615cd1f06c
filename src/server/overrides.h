// Per-request overrides read from the query string, so one server can play many parts without
// a restart (after HAProxy's haterm): "?delay=50&status=503&size=20k" on any path.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace stampede::server {

struct Overrides {
  std::optional<std::int64_t> delay_ns;  // delay=DURATION (bare number: milliseconds)
  std::optional<int> status;             // status=CODE, 200..599
  std::optional<std::uint64_t> size;     // size=BYTES (k/m suffixes, x1024): body of that size
  bool close = false;                    // close=1: answer, then close the connection

  bool any() const { return delay_ns || status || size || close; }
};

// Largest values accepted, so that a typo cannot make the server hold a connection for a day
// or buffer gigabytes.
inline constexpr std::int64_t kMaxOverrideDelayNs = 600'000'000'000;  // 10 minutes
inline constexpr std::uint64_t kMaxOverrideSize = std::uint64_t{64} << 20;

// The reason a query string was refused: a static one-line message (it becomes a 400 body).
struct OverrideError {
  std::string_view message;
};

// Reads the override parameters of `query` (the target after '?'). Unknown parameters are
// ignored (cache busters, a load generator's own parameters); a known one with a bad value is
// an error. Values are taken as sent: numbers and words need no percent-decoding.
// No allocation.
std::optional<OverrideError> parse_overrides(std::string_view query, Overrides& out);

}  // namespace stampede::server
