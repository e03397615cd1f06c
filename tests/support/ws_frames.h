// WebSocket frames built by hand for tests (RFC 6455 section 5.2), to send exactly the bytes a
// case needs, malformed ones included.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace stampede::testing {

// One frame: FIN, RSV bits (0-7), opcode, the length in its shortest form, and the payload,
// masked with a fixed key when `masked` (as clients send).
inline std::string ws_frame(std::uint8_t opcode, std::string_view payload, bool masked,
                            bool fin = true, std::uint8_t rsv = 0) {
  std::string out;
  out += static_cast<char>((fin ? 0x80 : 0) | (rsv << 4) | opcode);
  const int mask_bit = masked ? 0x80 : 0;
  if (payload.size() < 126) {
    out += static_cast<char>(mask_bit | static_cast<int>(payload.size()));
  } else if (payload.size() < 65536) {
    out += static_cast<char>(mask_bit | 126);
    out += static_cast<char>(payload.size() >> 8);
    out += static_cast<char>(payload.size() & 0xff);
  } else {
    out += static_cast<char>(mask_bit | 127);
    for (int shift = 56; shift >= 0; shift -= 8)
      out += static_cast<char>((payload.size() >> shift) & 0xff);
  }
  const char key[4] = {0x12, 0x34, 0x56, 0x78};
  if (masked) out.append(key, 4);
  for (std::size_t i = 0; i < payload.size(); ++i)
    out += masked ? static_cast<char>(payload[i] ^ key[i % 4]) : payload[i];
  return out;
}

// A close frame with `code` and no reason, unmasked (as a server sends it).
inline std::string ws_close_frame(std::uint16_t code) {
  return std::string{static_cast<char>(0x88), 2, static_cast<char>(code >> 8),
                     static_cast<char>(code & 0xff)};
}

}  // namespace stampede::testing
