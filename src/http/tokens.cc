#include "http/tokens.h"

#include <array>

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
Failure bad_byte(std::string_view text, std::size_t at, std::string_view expected) {
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

Expected<void> check_request_target(std::string_view text) {
  constexpr std::string_view kExpected = "a path is '/' then visible ASCII only";
  if (text.empty()) return make_error("empty (a path starts with '/')");
  if (text.front() != '/') return make_error("must start with '/'");
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!is_visible(static_cast<unsigned char>(text[i]))) return bad_byte(text, i, kExpected);
  }
  return {};
}

Expected<void> check_header_name(std::string_view text) {
  if (text.empty()) return make_error("empty (a header name is a token)");
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!is_token(text.substr(i, 1))) {
      return bad_byte(text, i, "a header name is letters, digits and !#$%&'*+-.^_`|~");
    }
  }
  return {};
}

Expected<void> check_header_value(std::string_view text) {
  constexpr std::string_view kExpected = "a header value is visible ASCII and inner spaces";
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool inner = i > 0 && i + 1 < text.size();
    if (!is_visible(c) && !((c == ' ' || c == '\t') && inner)) return bad_byte(text, i, kExpected);
  }
  return {};
}

Expected<void> check_host(std::string_view text) {
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

namespace {

// RFC 3986 3.2.2 reg-name bytes: unreserved, sub-delims and '%' (of pct-encoded).
constexpr std::array<bool, 256> make_reg_name_table() {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c) {
    const char ch = static_cast<char>(c);
    t[c] = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           std::string_view("-._~!$&'()*+,;=%").find(ch) != std::string_view::npos;
  }
  return t;
}
constexpr std::array<bool, 256> kRegNameChars = make_reg_name_table();

}  // namespace

// RFC 9110 7.2: Host = uri-host [ ":" port ], uri-host an IP literal in brackets or a reg-name
// (an IPv4 address is one), port *DIGIT; empty is allowed (RFC 9112 3.2). Rejects userinfo
// ('@'), a path, spaces, a list of hosts: RFC 9112 3.2 makes an invalid Host a 400.
bool is_host_field_value(std::string_view host) {
  std::size_t i = 0;
  if (!host.empty() && host[0] == '[') {
    const std::size_t close = host.find(']');
    if (close == std::string_view::npos || close == 1) return false;
    for (i = 1; i < close; ++i) {
      if (!kRegNameChars[static_cast<unsigned char>(host[i])] && host[i] != ':') return false;
    }
    ++i;
  } else {
    while (i < host.size() && kRegNameChars[static_cast<unsigned char>(host[i])])
      ++i;
  }
  if (i == host.size()) return true;
  if (host[i] != ':') return false;
  for (++i; i < host.size(); ++i) {
    if (host[i] < '0' || host[i] > '9') return false;
  }
  return true;
}

}  // namespace stampede::http
