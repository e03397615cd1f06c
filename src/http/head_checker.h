// Head syntax checks that llhttp 8.1 (as built here, non-strict) lets through.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "http/parse_types.h"

namespace stampede::http {

// Which start line a HeadChecker expects.
enum class HeadKind : std::uint8_t { Request, Response };

// Scans the bytes of message heads as they arrive (split anywhere) and flags, as errors with
// `status` (400 for requests, 502 for responses):
//  - a line ending in a bare LF (llhttp accepts one after the start line and as the final
//    empty line, which lets a front end and a back end disagree on where the head ends);
//  - responses: a bare CR (not followed by LF) in the status line (llhttp takes one in a reason
//    phrase, and the header lines after it then become body; it refuses one in a request line
//    or a header line itself, which the differential test's vectors check);
//  - a bare CR at the start of a header line (llhttp ends the head at "\r\r\n" or "\rX"), and
//    anywhere else in a header line (llhttp takes one at the start of a value, "Name:\rX",
//    when the bytes after it arrive in the same read, and refuses it when they do not);
//  - obs-fold: a header line starting with SP or HTAB (RFC 9112 5.2 allows rejecting it);
//  - a header line starting with ':' (an empty name, which llhttp 8.1 takes);
//  - requests: two consecutive spaces in the request line ("GET  / HTTP/1.1");
//  - responses: a status code that is not exactly three digits 100-599 followed by SP or CRLF
//    (llhttp reads "099" as 99 and "0200" as 200).
// Response heads may follow one another (1xx interim responses): after a head's empty line the
// next bytes are checked as a new start line. Feed it only head bytes; reset() before each new
// request head. Owned by one parser, one thread.
class HeadChecker {
 public:
  explicit HeadChecker(HeadKind kind) : kind_(kind) {}
  void reset() { *this = HeadChecker{kind_}; }

  // Checks the next `n` bytes of the head; returns the first violation found, if any.
  std::optional<ParseError> scan(const char* p, std::size_t n);

 private:
  const ParseError* scan_lines(const char* p, std::size_t n);
  // Scans the start line; returns where the header lines start, or nullptr on a violation.
  const char* scan_start_line(const char* p, const char* end, const ParseError*& error);
  // Checks [p, stop) of one line for a CR not followed by LF; `lf`: the byte at stop is LF.
  bool bare_cr(const char* p, const char* stop, bool lf) const;
  // Responses: takes the status line's first bytes, checks its status code once it has them.
  bool status_line_ok(const char* p, const char* stop, bool lf);
  static bool status_code_ok(const char* s, std::size_t len);

  static constexpr std::size_t kStatusPrefix = 13;  // "HTTP/1.1 200 "

  HeadKind kind_;
  bool in_start_line_ = true;
  bool start_line_blank_ = true;  // only CR seen so far: llhttp skips blank lines before it
  char prev_ = '\n';              // the byte before the next one scanned
  std::size_t line_bytes_ = 0;    // bytes of the current header line so far, LF excluded
  std::size_t status_len_ = 0;    // bytes of status_ filled
  bool status_checked_ = false;
  char status_[kStatusPrefix] = {};
};

}  // namespace stampede::http
