// The HTTP/2 client connection preface (RFC 9113 3.4): the 24 bytes a client with prior
// knowledge sends first on a plain connection ("h2c"). A server that speaks both protocols on one
// port looks at a connection's first bytes with match_preface() until it can decide. A slow
// client may send the preface a byte at a time: decide only when the bytes seen stop matching or
// the preface is complete. No allocation; any thread.
#pragma once

#include <cstdint>
#include <string_view>

namespace stampede::h2 {

inline constexpr std::string_view kClientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

enum class PrefaceMatch : std::uint8_t {
  Partial,   // every byte seen so far matches, and the preface is not complete: wait
  Mismatch,  // not HTTP/2 with prior knowledge (HTTP/1.1 then)
  Complete,  // the whole preface is there (more bytes may follow it)
};

// `seen`: the first bytes of the connection (all of them since it opened).
PrefaceMatch match_preface(std::string_view seen);

}  // namespace stampede::h2
