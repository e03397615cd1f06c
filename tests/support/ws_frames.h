// WebSocket frames built by hand for tests (RFC 6455 section 5.2), to send exactly the bytes a
// case needs, malformed ones included.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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

// A frame as read back from bytes a peer wrote: the payload unmasked.
struct ParsedWsFrame {
  std::uint8_t opcode = 0;
  bool fin = true;
  bool masked = false;
  std::string payload;
};

// Splits `bytes` into frames, unmasking masked payloads; a trailing incomplete frame is left out
// and counted in `*incomplete` when given.
inline std::vector<ParsedWsFrame> ws_parse_frames(std::string_view bytes,
                                                  std::size_t* incomplete = nullptr) {
  std::vector<ParsedWsFrame> frames;
  std::size_t at = 0;
  auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(bytes[i]); };
  while (bytes.size() - at >= 2) {
    ParsedWsFrame f;
    f.fin = (byte(at) & 0x80) != 0;
    f.opcode = byte(at) & 0x0f;
    f.masked = (byte(at + 1) & 0x80) != 0;
    std::uint64_t length = byte(at + 1) & 0x7f;
    std::size_t head = 2;
    const std::size_t extended = length == 126 ? 2 : length == 127 ? 8 : 0;
    if (bytes.size() - at < head + extended) break;
    if (extended != 0) length = 0;
    for (std::size_t i = 0; i < extended; ++i)
      length = length << 8 | byte(at + head + i);
    head += extended;
    const std::size_t key_at = at + head;
    if (f.masked) head += 4;
    if (bytes.size() - at < head || bytes.size() - at - head < length) break;
    f.payload.assign(bytes.substr(at + head, static_cast<std::size_t>(length)));
    for (std::size_t i = 0; f.masked && i < f.payload.size(); ++i)
      f.payload[i] = static_cast<char>(f.payload[i] ^ bytes[key_at + i % 4]);
    at += head + static_cast<std::size_t>(length);
    frames.push_back(std::move(f));
  }
  if (incomplete != nullptr) *incomplete = bytes.size() - at;
  return frames;
}

}  // namespace stampede::testing
