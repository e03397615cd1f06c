// Sizes and small helpers shared by the two halves of ProxySession and by H2Stream.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace stampede::balancer {

// Bytes asked of one read(): a typical response or request fits in one.
inline constexpr std::size_t kReadChunk = 16 * 1024;
// Bytes queued toward one side before reading from the other stops (backpressure).
inline constexpr std::size_t kMaxPendingBytes = 256 * 1024;
// A request is kept whole for a possible retry until a response byte arrives or it grows
// past this; after that its sent bytes are dropped and it can no longer be re-sent.
inline constexpr std::size_t kRetainBytes = 64 * 1024;
// A backend response head larger than this is a bad response (502).
inline constexpr std::size_t kMaxResponseHeadBytes = 64 * 1024;

// Idempotent request methods (RFC 9110 9.2.2): sending one twice has the effect of once.
inline bool is_idempotent(std::string_view method) {
  return method == "GET" || method == "HEAD" || method == "PUT" || method == "DELETE" ||
         method == "OPTIONS" || method == "TRACE";
}

template <class Rep, class Period>
constexpr std::int64_t ns(std::chrono::duration<Rep, Period> d) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
}

}  // namespace stampede::balancer
