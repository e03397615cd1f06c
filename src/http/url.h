// Parsing of the URLs given on the command line: http, https, ws and wss only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/expected.h"

namespace stampede::http {

enum class Scheme : std::uint8_t { Http, Https, Ws, Wss };

std::string_view scheme_name(Scheme scheme);  // "http", "https", "ws", "wss"
std::uint16_t default_port(Scheme scheme);    // 80 or 443

struct Url {
  Scheme scheme = Scheme::Http;
  std::string host;          // lower-cased; an IPv6 literal without its brackets ("::1")
  std::uint16_t port = 80;   // explicit, or the scheme's default
  std::string target = "/";  // path + query, "/" when empty; no fragment; non-ASCII bytes
                             // percent-encoded
  std::string host_header;   // host[:port] for the Host header: port only when not the
                             // default, IPv6 in brackets ("[::1]:8080")

  bool tls() const { return scheme == Scheme::Https || scheme == Scheme::Wss; }
  bool websocket() const { return scheme == Scheme::Ws || scheme == Scheme::Wss; }
};

// Parses "scheme://host[:port][/path][?query][#fragment]" (scheme case-insensitive).
// Errors, each with a message naming the problem: missing or unsupported scheme, empty host,
// bad host characters or IPv6 literal, user info, bad port (empty, not a number, 0, > 65535),
// spaces or control characters anywhere.
Expected<Url> parse_url(std::string_view text);

}  // namespace stampede::http
