#include "http/tokens.h"

#include <fmt/format.h>

#include "http/header.h"

namespace stampede::http {
namespace {

bool is_visible(unsigned char c) {
  return c >= 0x21 && c <= 0x7e;
}

bool is_alnum(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Names the first byte that is not allowed, without echoing the text it came in.
Error bad_byte(std::string_view text, std::size_t at, std::string_view expected) {
  const auto c = static_cast<unsigned char>(text[at]);
  std::string what;
  if (c == '\r') {
    what = "a CR";
  } else if (c == '\n') {
    what = "an LF";
  } else if (c == ' ') {
    what = "a space";
  } else if (is_visible(c)) {
    what = fmt::format("'{}'", static_cast<char>(c));
  } else {
    what = fmt::format("byte 0x{:02x}", c);
  }
  return make_error(fmt::format("{} at offset {} ({})", what, at, expected));
}

}  // namespace

bool is_token(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!is_tchar(c)) return false;
  }
  return true;
}

Result<void> check_request_target(std::string_view text) {
  constexpr std::string_view kExpected = "a path is '/' then visible ASCII only";
  if (text.empty()) return make_error("empty (a path starts with '/')");
  if (text.front() != '/') return make_error("must start with '/'");
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!is_visible(static_cast<unsigned char>(text[i]))) return bad_byte(text, i, kExpected);
  }
  return {};
}

Result<void> check_header_name(std::string_view text) {
  if (text.empty()) return make_error("empty (a header name is a token)");
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!is_token(text.substr(i, 1))) {
      return bad_byte(text, i, "a header name is letters, digits and !#$%&'*+-.^_`|~");
    }
  }
  return {};
}

Result<void> check_header_value(std::string_view text) {
  constexpr std::string_view kExpected = "a header value is visible ASCII and inner spaces";
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool inner = i > 0 && i + 1 < text.size();
    if (!is_visible(c) && !((c == ' ' || c == '\t') && inner)) return bad_byte(text, i, kExpected);
  }
  return {};
}

Result<void> check_host(std::string_view text) {
  if (text.empty()) return make_error("empty host");
  if (text.size() > 255) return make_error("host longer than 255 bytes");
  if (text.front() == '[') {
    if (text.size() < 3 || text.back() != ']') return make_error("an IPv6 literal needs ']'");
    for (std::size_t i = 1; i + 1 < text.size(); ++i) {
      const auto c = static_cast<unsigned char>(text[i]);
      const bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') ||
                      c == ':' || c == '.';
      if (!ok) return bad_byte(text, i, "an IPv6 literal is hex digits, ':' and '.'");
    }
    return {};
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (!is_alnum(c) && c != '-' && c != '.' && c != '_') {
      return bad_byte(text, i, "a host is letters, digits, '-', '.' and '_'");
    }
  }
  return {};
}

}  // namespace stampede::http
