#include "http/head_checker.h"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace stampede::http {
namespace {

constexpr ParseError kObsFold{400, "OBS_FOLD", "obsolete header line folding"};
constexpr ParseError kEmptyName{400, "INVALID_HEADER_TOKEN", "header line with an empty name"};
constexpr ParseError kDoubleSpace{400, "REQUEST_LINE_SPACES", "repeated space in request line"};
constexpr ParseError kBadStatus{502, "INVALID_STATUS",
                                "status code is not three digits 100-599 followed by SP"};

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// The first CR or LF in [p, end), or end. One pass where two memchr calls (LF, then CR before
// it) cost twice the calls on the short lines of a head; with SSE2, 16 bytes a step, and the
// last step re-reads the 16 bytes before `end` when [lo, end) has them, so no read goes past
// `end` or before `lo` (the start of the bytes given to scan()).
const char* find_cr_or_lf(const char* lo, const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i cr = _mm_set1_epi8('\r');
  const __m128i lf = _mm_set1_epi8('\n');
  const auto hits = [&](const char* at) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
    return static_cast<unsigned>(
        _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, lf))));
  };
  for (; end - p >= 16; p += 16) {
    if (const unsigned m = hits(p)) return p + __builtin_ctz(m);
  }
  if (p == end) return end;
  if (end - lo >= 16) {
    const char* at = end - 16;
    // Bytes before p in this block were scanned already: drop their bits.
    if (const unsigned m = hits(at) >> (p - at)) return p + __builtin_ctz(m);
    return end;
  }
#else
  (void)lo;
#endif
  for (; p < end; ++p) {
    if (*p == '\r' || *p == '\n') return p;
  }
  return end;
}

}  // namespace

bool HeadChecker::bare_cr(const char* p, const char* stop, bool lf) const {
  if (prev_ == '\r' && p < stop) return true;  // a CR that ended the previous piece
  const void* found = std::memchr(p, '\r', static_cast<std::size_t>(stop - p));
  if (found == nullptr) return false;
  const char* cr = static_cast<const char*>(found);
  // Only the byte before the LF may be a CR (or the last byte given, when the LF is to come).
  return cr + 1 < stop || (!lf && cr + 1 != stop);
}

bool HeadChecker::status_code_ok(const char* s, std::size_t len) {
  // llhttp checked "HTTP/d.d"; this checks " DDD" and what follows it: SP, or the line's end
  // (a bare LF there is the caller's error).
  if (len < 12 || s[8] != ' ') return false;
  if (!is_digit(s[9]) || !is_digit(s[10]) || !is_digit(s[11])) return false;
  if (s[9] < '1' || s[9] > '5') return false;
  return len == 12 || s[12] == ' ' || s[12] == '\r';
}

bool HeadChecker::status_line_ok(const char* p, const char* stop, bool lf) {
  if (status_checked_) return true;
  if (status_len_ == 0 && stop - p >= static_cast<std::ptrdiff_t>(kStatusPrefix) && *p != '\r') {
    // The usual case: the status line's start arrived in one piece, with no blank line before.
    start_line_blank_ = false;
    status_checked_ = true;
    return status_code_ok(p, kStatusPrefix);
  }
  for (; p < stop && status_len_ < kStatusPrefix; ++p) {
    if (start_line_blank_ && *p == '\r') continue;  // a CR of a blank line before it
    start_line_blank_ = false;
    status_[status_len_++] = *p;
  }
  if (start_line_blank_ || (status_len_ < kStatusPrefix && !lf)) return true;
  status_checked_ = true;
  return status_code_ok(status_, status_len_);
}

const char* HeadChecker::scan_start_line(const char* p, const char* end, const ParseError*& error) {
  const void* found = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
  const char* lf = static_cast<const char*>(found);
  const char* stop = lf != nullptr ? lf : end;
  // llhttp refuses a bare CR in a request line and in header lines, not in a reason phrase.
  if (kind_ == HeadKind::Response && bare_cr(p, stop, lf != nullptr)) {
    error = &kBareCr;
    return nullptr;
  }
  if (kind_ == HeadKind::Request) {
    // Repeated spaces, including a pair split across feed() calls; memchr keeps long targets
    // cheap.
    if (p < stop && *p == ' ' && prev_ == ' ') {
      error = &kDoubleSpace;
      return nullptr;
    }
    for (const char* s = p; s < stop; ++s) {
      s = static_cast<const char*>(std::memchr(s, ' ', static_cast<std::size_t>(stop - s)));
      if (s == nullptr) break;
      if (s + 1 < stop && s[1] == ' ') {
        error = &kDoubleSpace;
        return nullptr;
      }
    }
  }
  if (kind_ == HeadKind::Response) {
    if (!status_line_ok(p, stop, lf != nullptr)) {
      error = &kBadStatus;
      return nullptr;
    }
  } else {
    for (const char* s = p; start_line_blank_ && s < stop; ++s)
      start_line_blank_ = *s == '\r';
  }
  if (p < stop) prev_ = stop[-1];
  if (lf == nullptr) return end;
  if (prev_ != '\r') {
    error = &kBareLf;
    return nullptr;
  }
  prev_ = '\n';
  if (!start_line_blank_) in_start_line_ = false;
  return lf + 1;
}

std::optional<ParseError> HeadChecker::scan(const char* p, std::size_t n) {
  const ParseError* error = scan_lines(p, n);
  if (error == nullptr) return std::nullopt;
  ParseError out = *error;
  if (kind_ == HeadKind::Response) out.status = 502;
  return out;
}

const ParseError* HeadChecker::scan_lines(const char* p, std::size_t n) {
  const ParseError* error = nullptr;
  const char* const lo = p;
  const char* const end = p + n;
  while (p < end) {
    if (in_start_line_) {
      p = scan_start_line(p, end, error);
      if (p == nullptr) return error;
      continue;
    }
    // A CR that ended the previous piece must be followed by LF. llhttp refuses a bare CR within
    // a header line, not at the start of one: "\r\r\n" or "\rX" there end its head.
    if (prev_ == '\r' && *p != '\n') return &kBareCr;
    if (prev_ == '\n') {
      if (*p == ' ' || *p == '\t') return &kObsFold;
      if (*p == '\r' && p + 1 < end && p[1] != '\n') return &kBareCr;
      if (*p == ':') return &kEmptyName;  // llhttp 8.1 takes an empty name
    }
    // llhttp 8.1 also takes a bare CR at the start of a header value ("Name:\rX"), or not,
    // depending on where the bytes were cut: any CR in a header line but the one before its LF
    // is refused here, whole or split. So the line's first CR or LF decides: a CR must be
    // followed by LF (or end the bytes given), an LF must follow a CR.
    const char* hit = find_cr_or_lf(lo, p, end);
    if (hit == end || (*hit == '\r' && hit + 1 == end)) {  // the line goes on in the next piece
      line_bytes_ += static_cast<std::size_t>(end - p);
      prev_ = end[-1];
      return error;
    }
    const char* lf = hit;
    if (*hit == '\r') {
      if (hit[1] != '\n') return &kBareCr;
      lf = hit + 1;
    } else if (hit > p || prev_ != '\r') {
      return &kBareLf;
    }
    line_bytes_ += static_cast<std::size_t>(lf - p);
    if (line_bytes_ == 1) {
      // The empty line: this head ended. Only a response can have another one after it (the
      // final response after a 1xx).
      in_start_line_ = start_line_blank_ = true;
      status_len_ = 0;
      status_checked_ = false;
    }
    prev_ = '\n';
    line_bytes_ = 0;
    p = lf + 1;
  }
  return error;
}

}  // namespace stampede::http
