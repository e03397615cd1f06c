// The test vectors of tests/vectors/ (JSON arrays, one object a case) as the tests that replay
// them read them: the file's document, and the hex notation the WebSocket vectors write bytes in.
// Header-only: it needs nlohmann-json, which only the test binaries that include it use.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "support/process.h"

namespace stampede::testing {

// The JSON document of tests/vectors/`name` (e.g. "ws/frames.json"); throws (failing the test)
// when the file is missing or not JSON.
inline nlohmann::json vector_file(std::string_view name) {
  return nlohmann::json::parse(
      read_file(std::string(STAMPEDE_SOURCE_DIR) + "/tests/vectors/" + std::string(name)));
}

// "8185 37fa213d | 7f9f": hex digits, spaces and bars between them ignored, as bytes; any other
// character, or an odd number of digits, is a test failure.
inline std::string bytes_of_hex(std::string_view hex) {
  std::string out;
  int high = -1;
  for (char c : hex) {
    if (c == ' ' || c == '|') continue;
    const int digit = c >= '0' && c <= '9'   ? c - '0'
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                             : -1;
    if (digit < 0) ADD_FAILURE() << "not hex: '" << c << "' in " << hex;
    if (high < 0) {
      high = digit;
    } else {
      out += static_cast<char>(high << 4 | digit);
      high = -1;
    }
  }
  if (high >= 0) ADD_FAILURE() << "odd number of hex digits in " << hex;
  return out;
}

}  // namespace stampede::testing
