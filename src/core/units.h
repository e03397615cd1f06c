// Parsing of human-friendly numbers: counts ("10k"), durations ("2s", "500ms"), sizes ("20k").
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

#include "core/expected.h"

namespace stampede {

// Nanoseconds as milliseconds (for reports: 1 500 000 ns -> 1.5).
inline constexpr double ns_to_ms(std::int64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

// A non-negative integer with an optional k/m/g suffix (x1000). "1.5k" -> 1500.
// Rejects empty, negative, non-numeric and overflowing input.
Expected<std::uint64_t> parse_count(std::string_view text);

// A non-negative number (integer or decimal, e.g. "0.5"). Rejects empty, negative, nan/inf.
Expected<double> parse_number(std::string_view text);

// A duration: a number followed by ns, us, ms, s, m or h; a bare number means `bare_unit`.
Expected<std::chrono::nanoseconds> parse_duration(std::string_view text,
                                                  std::chrono::nanoseconds bare_unit);

// A byte size with optional k/m/g suffix (x1024). "20k" -> 20480.
Expected<std::uint64_t> parse_size(std::string_view text);

}  // namespace stampede
