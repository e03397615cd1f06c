// Vocabulary of the pull-style HTTP/1.1 parsers (RequestParser, ResponseParser).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace stampede::http {

// What a feed() call stopped at.
enum class Event : std::uint8_t {
  NeedMore,         // every byte given was consumed; feed more when it arrives
  HeadComplete,     // the head (start line + headers) ended at data + consumed
  MessageComplete,  // the message (head + body) ended at data + consumed
  Error,            // the input is malformed or over a limit; see error()
};

// The result of feed()/finish(). After HeadComplete or MessageComplete, call feed() again with
// the bytes after `consumed`, even when none are left: a message without a body completes on
// the next call (feed(p, 0) is fine). Loop until NeedMore or Error. On Error, `consumed` is only
// informational.
struct Step {
  Event event = Event::NeedMore;
  std::size_t consumed = 0;
};

// Why parsing failed. The views point to static strings (valid for the program's lifetime).
struct ParseError {
  // The status to answer with: requests 400 (malformed), 413 (body over the limit), 414 (target
  // over the limit), 431 (head over the limit) or 505 (HTTP version other than 1.x);
  // responses 502 (what a proxy answers for a malformed upstream response).
  int status = 0;
  std::string_view name;     // stable identifier: an llhttp errno name ("HPE_INVALID_METHOD")
                             // or one of stampede's ("HEADER_TOO_LARGE", "BARE_LF", ...)
  std::string_view message;  // one line for humans
};

// Line-ending errors shared by the head and the chunked-body checkers (requests; a response's
// are mapped to 502 by the response parser).
inline constexpr ParseError kBareLf{400, "BARE_LF", "line ending without CR (bare LF)"};
inline constexpr ParseError kBareCr{400, "BARE_CR", "CR not followed by LF"};

// The value of a hex digit (0-9, a-f, A-F), or -1 for any other byte.
inline constexpr int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Limits the RequestParser enforces (a server's protection against hostile clients).
struct ParserLimits {
  std::size_t max_header_bytes = 16384;  // the whole head: request line + fields -> 431
  std::size_t max_uri_bytes = 8192;      // the request target -> 414
  std::uint64_t max_body_bytes = std::uint64_t{1} << 30;  // Content-Length or chunk sum -> 413
};

}  // namespace stampede::http
