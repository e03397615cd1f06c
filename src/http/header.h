// Header fields and case-insensitive comparison, shared by the parsers and the writers.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string_view>

namespace stampede::http {

// One header field. The views point into storage owned by whoever produced the Header
// (a parser's internal buffer, or the caller's strings for the writers).
struct Header {
  std::string_view name;
  std::string_view value;
};

inline constexpr char ascii_lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + ('a' - 'A')) : c;
}

// RFC 9110 5.6.2 tchar, the bytes of a token (header names, methods, codings): letters, digits
// and !#$%&'*+-.^_`|~. A 256-entry table, since the request parser checks every header name.
inline constexpr std::array<bool, 256> kTokenChars = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c) {
    t[c] = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
  }
  return t;
}();

inline constexpr bool is_tchar(char c) {
  return kTokenChars[static_cast<unsigned char>(c)];
}

// RFC 9110 5.6.2: a token is one or more tchar. The one check for methods and header names,
// in the parsers and for what an option puts into a request.
inline constexpr bool is_token(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!is_tchar(c)) return false;
  }
  return true;
}

// ASCII case-insensitive equality (header names, tokens such as "chunked" or "100-continue").
inline constexpr bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

// `text` without the optional white space (RFC 9110 5.6.3 OWS: spaces and tabs) around it.
inline constexpr std::string_view trim_ows(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
    text.remove_suffix(1);
  return text;
}

// The first header named `name` (case-insensitive), or nullptr.
inline const Header* find_header(std::span<const Header> headers, std::string_view name) {
  for (const Header& h : headers) {
    if (iequals(h.name, name)) return &h;
  }
  return nullptr;
}

}  // namespace stampede::http
