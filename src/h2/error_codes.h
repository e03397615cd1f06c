// Names of the HTTP/2 error codes (RFC 9113 7), for logs, reports and test messages.
#pragma once

#include <cstdint>
#include <string_view>

namespace stampede::h2 {

// "NO_ERROR", "PROTOCOL_ERROR", ... ; "UNKNOWN" for a code the RFC does not define.
std::string_view error_code_name(std::uint32_t code);

}  // namespace stampede::h2
