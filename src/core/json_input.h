// Parsing JSON that comes from outside (.loadtestrc, balance --config, a peer's reply) with a
// bound on nesting: nlohmann-json builds and prints documents recursively, so a document nested
// 100 000 levels deep would overflow the stack of whatever reads it next.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "core/expected.h"

namespace stampede {

// Arrays and objects nested deeper than this are refused (64 is far more than any of our inputs
// uses, and far less than a stack can take).
inline constexpr int kMaxJsonDepth = 64;

// The document in `text`, or an Error: "invalid JSON" or "JSON nested deeper than 64 levels".
// Parsing itself is iterative; a too-deep part is discarded as it is read, never built.
Expected<nlohmann::json> parse_json_input(std::string_view text);

}  // namespace stampede
