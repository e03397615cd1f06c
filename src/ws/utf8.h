// UTF-8 validation: whether a message can go as a WebSocket text frame (the generator sends
// anything else as binary). Received text is checked by wslay itself (1007), as it arrives.
#pragma once

#include <string_view>

namespace stampede::ws {

// Whether `text` is well-formed UTF-8 (RFC 3629): no overlong forms, no surrogates
// (U+D800..U+DFFF), nothing above U+10FFFF, no truncated sequence at the end. ASCII runs are
// checked eight bytes at a time.
bool valid_utf8(std::string_view text);

}  // namespace stampede::ws
