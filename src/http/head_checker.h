// Request-head syntax checks that llhttp 8.1 (as built here, non-strict) lets through.
#pragma once

#include <cstddef>
#include <optional>

#include "http/parse_types.h"

namespace stampede::http {

// Scans the bytes of one request head as they arrive (split anywhere) and flags, as 400s:
//  - a line ending in a bare LF (llhttp accepts one after the request line and as the final
//    empty line, which lets a front end and a back end disagree on where the head ends);
//  - obs-fold: a header line starting with SP or HTAB (RFC 9112 5.2 allows rejecting it);
//  - two consecutive spaces in the request line ("GET  / HTTP/1.1").
// Feed it only head bytes; reset() before each new head. Owned by one parser, one thread.
class HeadChecker {
 public:
  void reset() { *this = HeadChecker{}; }

  // Checks the next `n` bytes of the head; returns the first violation found, if any.
  std::optional<ParseError> scan(const char* p, std::size_t n);

 private:
  // Scans the request line; returns where the header lines start, or nullptr on a violation.
  const char* scan_start_line(const char* p, const char* end, std::optional<ParseError>& error);

  bool in_start_line_ = true;
  bool start_line_blank_ = true;  // only CR seen so far: llhttp skips blank lines before it
  char prev_ = '\n';              // the byte before the next one scanned
};

}  // namespace stampede::http
