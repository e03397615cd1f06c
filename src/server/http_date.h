// The IMF-fixdate of the Date header ("Sun, 06 Nov 1994 08:49:37 GMT"), always 29 bytes.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace stampede::server {

inline constexpr std::size_t kHttpDateLength = 29;
using HttpDate = std::array<char, kHttpDateLength>;

// Formats `unix_seconds` (UTC) without the locale. Pure; any thread.
HttpDate format_http_date(std::int64_t unix_seconds);

// Wall-clock seconds now, and nanoseconds until the next whole second (for a timer aligned to
// the moment the Date changes).
std::int64_t wall_seconds();
std::int64_t ns_to_next_wall_second();

inline std::string_view view(const HttpDate& date) {
  return std::string_view(date.data(), date.size());
}

}  // namespace stampede::server
