// HTTP/2 frames built by hand for tests (RFC 9113 4.1), to send exactly the bytes a hostile case
// needs: floods of the frames a peer sends at no cost (h2/flood_guard.h), frames the protocol
// forbids, and a reader that finds the GOAWAY in what a server wrote back without an nghttp2
// session (which would stop at the first frame it dislikes, such as an unasked SETTINGS ACK).
// The server's and the balancer's tests use the same frames. Pure functions; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "h2/flood_guard.h"

namespace stampede::testing {

// A frame: the 9-byte header (length, type, flags, stream id) and `payload`.
std::string raw_frame(std::uint8_t type, std::uint8_t flags, std::uint32_t stream,
                      std::string_view payload);

// A GET's header block in HPACK without the dynamic table: :method GET, :scheme http, :path /
// (static indexes), :authority x (literal, not indexed).
inline constexpr std::string_view kGetBlock{"\x82\x86\x84\x01\x01x", 6};

// 600 frames: over the flood guard's 500 a second, under nghttp2's own limit of 1000 unsent
// acknowledgements, so that only our guard can end the session.
inline constexpr int kFloodFrames = 600;

// `frames` frames of one costly kind, in one string: SETTINGS or PING frames that are no ACK,
// HEADERS then RST_STREAM on new streams (the rapid reset of CVE-2023-44487), HEADERS opening
// stream 1 then empty DATA frames without END_STREAM on it (`padded`: each with the PADDED flag
// and a pad length of 0, so one byte of payload and no data), or HEADERS frames with an empty
// header block on new streams, each a malformed request nghttp2 answers with a RST_STREAM (the
// reset flood of CVE-2019-9514).
std::string flood_of(h2::Costly kind, int frames = kFloodFrames, bool padded = false);

// A frame the protocol forbids, and the GOAWAY error code it must get (RFC 9113 and RFC 7541, as
// nghttp2 1.52 answers them; the .cc says where the two could differ).
struct ForbiddenFrame {
  const char* what;
  std::string frames;  // sent after the client's preface and SETTINGS
  std::uint32_t code;
};
std::vector<ForbiddenFrame> forbidden_frames();

// The error code of the first GOAWAY among the frames in `bytes` (a server's output from its
// first byte; no preface), or none when no whole GOAWAY frame is there.
std::optional<std::uint32_t> goaway_code(std::string_view bytes);

}  // namespace stampede::testing
