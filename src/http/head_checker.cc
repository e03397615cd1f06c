#include "http/head_checker.h"

#include <cstring>

namespace stampede::http {
namespace {

constexpr ParseError kBareLf{400, "BARE_LF", "line ending without CR (bare LF)"};
constexpr ParseError kObsFold{400, "OBS_FOLD", "obsolete header line folding"};
constexpr ParseError kDoubleSpace{400, "REQUEST_LINE_SPACES", "repeated space in request line"};

}  // namespace

const char* HeadChecker::scan_start_line(const char* p, const char* end,
                                         std::optional<ParseError>& error) {
  const void* found = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
  const char* lf = static_cast<const char*>(found);
  const char* stop = lf != nullptr ? lf : end;
  // Repeated spaces, including a pair split across feed() calls; memchr keeps long targets cheap.
  if (p < stop && *p == ' ' && prev_ == ' ') {
    error = kDoubleSpace;
    return nullptr;
  }
  for (const char* s = p; s < stop; ++s) {
    s = static_cast<const char*>(std::memchr(s, ' ', static_cast<std::size_t>(stop - s)));
    if (s == nullptr) break;
    if (s + 1 < stop && s[1] == ' ') {
      error = kDoubleSpace;
      return nullptr;
    }
  }
  for (const char* s = p; start_line_blank_ && s < stop; ++s)
    start_line_blank_ = *s == '\r';
  if (p < stop) prev_ = stop[-1];
  if (lf == nullptr) return end;
  if (prev_ != '\r') {
    error = kBareLf;
    return nullptr;
  }
  prev_ = '\n';
  if (!start_line_blank_) in_start_line_ = false;
  return lf + 1;
}

std::optional<ParseError> HeadChecker::scan(const char* p, std::size_t n) {
  std::optional<ParseError> error;
  const char* const end = p + n;
  while (p < end) {
    if (in_start_line_) {
      p = scan_start_line(p, end, error);
      if (p == nullptr) return error;
      continue;
    }
    if (prev_ == '\n' && (*p == ' ' || *p == '\t')) return kObsFold;
    const void* found = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    if (found == nullptr) {
      prev_ = end[-1];
      return error;
    }
    const char* lf = static_cast<const char*>(found);
    const char before = lf > p ? lf[-1] : prev_;
    if (before != '\r') return kBareLf;
    prev_ = '\n';
    p = lf + 1;
  }
  return error;
}

}  // namespace stampede::http
