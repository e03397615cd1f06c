// ChunkedChecker: the chunked body grammar (RFC 9112 7.1) that llhttp 8.1 does not enforce.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "http/parse_types.h"

namespace stampede::http {

// Scans the bytes of one chunked body as llhttp consumes them (split anywhere) and flags what
// llhttp 8.1 lets through, so that every parser use agrees with a strict peer on where the body
// ends:
//  - anything but exactly CRLF after a chunk's data (llhttp takes any two bytes);
//  - a chunk-size line that is not 1*HEXDIG, then optional extensions, then CRLF: no
//    whitespace around the size, no bare LF or bare CR, no control bytes in an extension, a size
//    that fits 64 bits;
//  - chunk extensions over `max_extension_bytes` in one message (a peer could otherwise send
//    endless extension bytes that count against no limit);
//  - trailer lines ending in a bare LF, containing a bare CR, folded (obs-fold), or whose name
//    is not a token followed by ':' (llhttp takes "Name : value" there); trailer
//    section bytes over `max_trailer_bytes` (the head limit's remainder: trailers count against
//    the same limit as the head).
// Errors carry `status` (400 requests, 502 responses), or `trailer_status` for too many trailer
// bytes (431 requests). Header syntax inside trailer lines is llhttp's job. One thread.
class ChunkedChecker {
 public:
  struct Limits {
    std::size_t max_extension_bytes = 0;
    std::size_t max_trailer_bytes = 0;
    int status = 400;
    int trailer_status = 431;
  };

  // A new chunked body starts.
  void reset(const Limits& limits) {
    *this = ChunkedChecker{};
    limits_ = limits;
  }
  // Checks the next `n` body bytes; returns the first violation found, if any.
  std::optional<ParseError> scan(const char* p, std::size_t n);
  // The body's last CRLF was seen (llhttp's message end must coincide with it).
  bool done() const { return state_ == State::Done; }

 private:
  enum class State : std::uint8_t {
    Size,       // chunk-size digits
    Extension,  // after ';' up to CR
    SizeLf,     // the LF of the chunk-size line
    Data,       // `remaining_` data bytes
    DataCr,     // the CR after the data
    DataLf,     // the LF after the data
    LineStart,  // a trailer line or the final empty line starts
    Name,       // a trailer field name, up to ':'
    Line,       // the rest of a trailer line
    LineLf,     // the LF of a trailer line
    FinalLf,    // the LF of the final empty line
    Done,
  };

  std::optional<ParseError> error(const ParseError& e) const;
  std::optional<ParseError> step(char c);
  // A line-ending byte: `c` must be `want`, then the state is `next`; any other byte is `e`.
  std::optional<ParseError> expect(char c, char want, const ParseError& e, State next);

  Limits limits_;
  State state_ = State::Size;
  std::uint64_t size_ = 0;
  std::uint64_t remaining_ = 0;
  std::size_t digits_ = 0;
  std::size_t extension_bytes_ = 0;
  std::size_t trailer_bytes_ = 0;
  std::size_t name_bytes_ = 0;
};

}  // namespace stampede::http
