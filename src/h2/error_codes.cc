#include "h2/error_codes.h"

#include <array>

namespace stampede::h2 {

std::string_view error_code_name(std::uint32_t code) {
  static constexpr std::array<std::string_view, 14> kNames = {"NO_ERROR",
                                                              "PROTOCOL_ERROR",
                                                              "INTERNAL_ERROR",
                                                              "FLOW_CONTROL_ERROR",
                                                              "SETTINGS_TIMEOUT",
                                                              "STREAM_CLOSED",
                                                              "FRAME_SIZE_ERROR",
                                                              "REFUSED_STREAM",
                                                              "CANCEL",
                                                              "COMPRESSION_ERROR",
                                                              "CONNECT_ERROR",
                                                              "ENHANCE_YOUR_CALM",
                                                              "INADEQUATE_SECURITY",
                                                              "HTTP_1_1_REQUIRED"};
  return code < kNames.size() ? kNames[code] : "UNKNOWN";
}

}  // namespace stampede::h2
