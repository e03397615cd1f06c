#include "support/h2_frames.h"

#include <nghttp2/nghttp2.h>

namespace stampede::testing {
namespace {

constexpr std::uint8_t kEndHeaders = NGHTTP2_FLAG_END_HEADERS;
constexpr std::size_t kFrameHeader = 9;

std::uint32_t read_u32(std::string_view bytes, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i)
    v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

}  // namespace

std::string raw_frame(std::uint8_t type, std::uint8_t flags, std::uint32_t stream,
                      std::string_view payload) {
  std::string f;
  const std::size_t n = payload.size();
  f.push_back(static_cast<char>(n >> 16));
  f.push_back(static_cast<char>(n >> 8));
  f.push_back(static_cast<char>(n));
  f.push_back(static_cast<char>(type));
  f.push_back(static_cast<char>(flags));
  for (int shift = 24; shift >= 0; shift -= 8)
    f.push_back(static_cast<char>(stream >> shift));
  f.append(payload);
  return f;
}

std::string flood_of(h2::Costly kind, int frames, bool padded) {
  std::string out;
  if (kind == h2::Costly::Empty)  // one open stream, then empty DATA frames on it
    out = raw_frame(NGHTTP2_HEADERS, kEndHeaders, 1, kGetBlock);
  for (int i = 0; i < frames; ++i) {
    const auto id = static_cast<std::uint32_t>(2 * i + 1);
    switch (kind) {
      case h2::Costly::Settings:
        out += raw_frame(NGHTTP2_SETTINGS, 0, 0, "");
        break;
      case h2::Costly::Ping:
        out += raw_frame(NGHTTP2_PING, 0, 0, std::string(8, 'p'));
        break;
      case h2::Costly::Reset:  // rapid reset: open a stream, cancel it
        out += raw_frame(NGHTTP2_HEADERS, kEndHeaders | NGHTTP2_FLAG_END_STREAM, id, kGetBlock);
        out += raw_frame(NGHTTP2_RST_STREAM, 0, id, std::string("\0\0\0\x08", 4));
        break;
      case h2::Costly::Empty:
        out += padded ? raw_frame(NGHTTP2_DATA, NGHTTP2_FLAG_PADDED, 1, std::string(1, '\0'))
                      : raw_frame(NGHTTP2_DATA, 0, 1, "");
        break;
      case h2::Costly::Invalid:  // no :method, :scheme, :path: malformed (RFC 9113 8.3.1)
        out += raw_frame(NGHTTP2_HEADERS, kEndHeaders | NGHTTP2_FLAG_END_STREAM, id, "");
        break;
    }
  }
  return out;
}

std::vector<ForbiddenFrame> forbidden_frames() {
  const std::string get_block(kGetBlock);
  return {
      // RFC 9113 6.2: padding as long as the payload or longer (here a pad length of 5 in a
      // payload of 5 bytes: the boundary) is a PROTOCOL_ERROR.
      {"bad padding",
       raw_frame(NGHTTP2_HEADERS, kEndHeaders | NGHTTP2_FLAG_PADDED, 1,
                 std::string(1, '\x05') + "abcd"),
       NGHTTP2_PROTOCOL_ERROR},
      // RFC 9113 4.2: a frame of 20000 bytes, over SETTINGS_MAX_FRAME_SIZE (16384 until the
      // receiver raises it). On an idle stream, which alone would be a PROTOCOL_ERROR: the size
      // is judged first, from the frame's header.
      {"oversized frame", raw_frame(NGHTTP2_DATA, 0, 1, std::string(20000, 'd')),
       NGHTTP2_FRAME_SIZE_ERROR},
      // RFC 7541 6.3 and RFC 9113 4.3: a dynamic table size update to 4097, over the
      // SETTINGS_HEADER_TABLE_SIZE of 4096 the receiver announces, is a COMPRESSION_ERROR.
      {"table size update",
       raw_frame(NGHTTP2_HEADERS, kEndHeaders | NGHTTP2_FLAG_END_STREAM, 1,
                 std::string("\x3f\xe2\x1f", 3) + get_block),
       NGHTTP2_COMPRESSION_ERROR},
      // RFC 9113 6.1: DATA on stream 0.
      {"data on stream 0", raw_frame(NGHTTP2_DATA, 0, 0, "abc"), NGHTTP2_PROTOCOL_ERROR},
      // RFC 9113 5.1.1: a client opens odd streams only; an even one is an unexpected stream
      // identifier.
      {"headers on an even stream",
       raw_frame(NGHTTP2_HEADERS, kEndHeaders | NGHTTP2_FLAG_END_STREAM, 2, get_block),
       NGHTTP2_PROTOCOL_ERROR},
      // RFC 9113 6.10: a CONTINUATION must follow a HEADERS without END_HEADERS.
      {"continuation without headers", raw_frame(NGHTTP2_CONTINUATION, kEndHeaders, 1, get_block),
       NGHTTP2_PROTOCOL_ERROR},
      // RFC 9113 6.10: nothing but CONTINUATION may come inside a header block.
      {"ping inside a header block",
       raw_frame(NGHTTP2_HEADERS, NGHTTP2_FLAG_END_STREAM, 1, get_block) +
           raw_frame(NGHTTP2_PING, 0, 0, std::string(8, 'p')),
       NGHTTP2_PROTOCOL_ERROR},
  };
}

std::optional<std::uint32_t> goaway_code(std::string_view bytes) {
  while (bytes.size() >= kFrameHeader) {
    const std::size_t length = read_u32(bytes, 0) >> 8;
    const auto type = static_cast<std::uint8_t>(bytes[3]);
    if (bytes.size() < kFrameHeader + length) return std::nullopt;
    // GOAWAY: last stream id (4 bytes), error code (4 bytes), debug data.
    if (type == NGHTTP2_GOAWAY && length >= 8) return read_u32(bytes, kFrameHeader + 4);
    bytes.remove_prefix(kFrameHeader + length);
  }
  return std::nullopt;
}

}  // namespace stampede::testing
