#include "http/chunked_checker.h"

#include <algorithm>

#include "http/header.h"

namespace stampede::http {
namespace {

constexpr ParseError kBadSize{400, "INVALID_CHUNK_SIZE", "chunk size is not 1*HEXDIG then CRLF"};
constexpr ParseError kSizeOverflow{400, "CHUNK_SIZE_OVERFLOW", "chunk size over 64 bits"};
constexpr ParseError kBadExtension{400, "INVALID_CHUNK_EXTENSION",
                                   "control byte in a chunk extension"};
constexpr ParseError kExtensionsTooLarge{400, "CHUNK_EXTENSIONS_TOO_LARGE",
                                         "chunk extensions exceed the head limit"};
constexpr ParseError kDataCrlf{400, "CHUNK_DATA_CRLF", "chunk data not followed by CRLF"};
constexpr ParseError kBadTrailerName{400, "INVALID_HEADER_NAME", "trailer name is not a token"};
constexpr ParseError kTrailerObsFold{400, "OBS_FOLD", "obsolete trailer line folding"};
constexpr ParseError kTrailersTooLarge{431, "TRAILERS_TOO_LARGE",
                                       "head and trailers exceed the head limit"};

// Bytes a chunk extension may hold: VCHAR, obs-text, SP, HTAB (the rest of its syntax is
// llhttp's to check).
bool extension_byte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u == '\t' || (u >= 0x20 && u != 0x7f);
}

}  // namespace

std::optional<ParseError> ChunkedChecker::error(const ParseError& e) const {
  ParseError out = e;
  out.status = e.status == 431 ? limits_.trailer_status : limits_.status;
  return out;
}

std::optional<ParseError> ChunkedChecker::expect(char c, char want, const ParseError& e,
                                                 State next) {
  if (c != want) return error(e);
  state_ = next;
  return std::nullopt;
}

std::optional<ParseError> ChunkedChecker::scan(const char* p, std::size_t n) {
  const char* const end = p + n;
  while (p < end) {
    if (state_ == State::Data) {
      const auto take = static_cast<std::size_t>(
          std::min<std::uint64_t>(remaining_, static_cast<std::uint64_t>(end - p)));
      p += take;
      remaining_ -= take;
      if (remaining_ == 0) state_ = State::DataCr;
      continue;
    }
    if (std::optional<ParseError> e = step(*p++)) return e;
  }
  return std::nullopt;
}

std::optional<ParseError> ChunkedChecker::step(char c) {
  switch (state_) {
    case State::Size: {
      const int v = hex_value(c);
      if (v >= 0) {
        if (size_ > (UINT64_MAX >> 4)) return error(kSizeOverflow);
        size_ = size_ * 16 + static_cast<std::uint64_t>(v);
        ++digits_;
        return std::nullopt;
      }
      if (digits_ == 0 || (c != ';' && c != '\r')) return error(kBadSize);
      state_ = c == ';' ? State::Extension : State::SizeLf;
      return std::nullopt;
    }
    case State::Extension:
      if (c == '\r') {
        state_ = State::SizeLf;
        return std::nullopt;
      }
      if (!extension_byte(c)) return error(kBadExtension);
      if (++extension_bytes_ > limits_.max_extension_bytes) return error(kExtensionsTooLarge);
      return std::nullopt;
    case State::SizeLf:
      remaining_ = size_;
      size_ = 0;
      digits_ = 0;
      return expect(c, '\n', kBareCr, remaining_ == 0 ? State::LineStart : State::Data);
    case State::Data:  // handled in bulk by scan()
      return std::nullopt;
    case State::DataCr:
      return expect(c, '\r', kDataCrlf, State::DataLf);
    case State::DataLf:
      return expect(c, '\n', kDataCrlf, State::Size);
    case State::LineStart:
      if (c == '\r') {
        state_ = State::FinalLf;
        return std::nullopt;
      }
      if (c == ' ' || c == '\t') return error(kTrailerObsFold);
      if (c == '\n') return error(kBareLf);
      state_ = State::Name;
      [[fallthrough]];
    case State::Name:
      // llhttp's non-strict build takes "Name : value"; a proxy must not pass that on.
      if (++trailer_bytes_ > limits_.max_trailer_bytes) return error(kTrailersTooLarge);
      if (c == ':' && name_bytes_ > 0) {
        state_ = State::Line;
        return std::nullopt;
      }
      if (!is_tchar(c)) return error(kBadTrailerName);
      ++name_bytes_;
      return std::nullopt;
    case State::Line:
      if (++trailer_bytes_ > limits_.max_trailer_bytes) return error(kTrailersTooLarge);
      if (c == '\n') return error(kBareLf);
      if (c == '\r') state_ = State::LineLf;
      return std::nullopt;
    case State::LineLf:
      name_bytes_ = 0;
      return expect(c, '\n', kBareCr, State::LineStart);
    case State::FinalLf:
      return expect(c, '\n', kBareCr, State::Done);
    case State::Done:
      return error(kBadSize);  // llhttp stops at the message end; nothing follows in a body
  }
  return std::nullopt;
}

}  // namespace stampede::http
