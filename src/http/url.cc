#include "http/url.h"

#include <array>

#include <fmt/format.h>

#include "http/header.h"

namespace stampede::http {
namespace {

struct Authority {
  std::string_view host;  // without brackets
  std::string_view port;  // empty when absent
  bool has_port = false;
  bool ipv6 = false;
};

// Each scheme's name, in Scheme's order: the one table parse_scheme and scheme_name read.
constexpr std::array<std::string_view, 4> kSchemeNames = {"http", "https", "ws", "wss"};

Expected<Scheme> parse_scheme(std::string_view text, std::string_view name) {
  for (std::size_t i = 0; i < kSchemeNames.size(); ++i) {
    if (iequals(name, kSchemeNames[i])) return static_cast<Scheme>(i);
  }
  return make_error(
      fmt::format("unsupported scheme '{}' in URL '{}' (use http, https, ws or wss)", name, text));
}

bool is_reg_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

bool is_ipv6_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' ||
         c == '.';
}

Expected<Authority> split_authority(std::string_view text, std::string_view auth) {
  Authority a;
  if (auth.find('@') != std::string_view::npos) {
    return make_error(fmt::format("user info in URL '{}' is not supported", text));
  }
  std::string_view rest = auth;
  if (!auth.empty() && auth.front() == '[') {
    const std::size_t close = auth.find(']');
    if (close == std::string_view::npos) {
      return make_error(fmt::format("unterminated IPv6 literal in URL '{}'", text));
    }
    a.host = auth.substr(1, close - 1);
    a.ipv6 = true;
    rest = auth.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') {
      return make_error(fmt::format("unexpected text after IPv6 literal in URL '{}'", text));
    }
  } else {
    a.host = auth.substr(0, auth.find(':'));
    rest = auth.substr(a.host.size());
  }
  if (!rest.empty()) {
    a.has_port = true;
    a.port = rest.substr(1);
  }
  return a;
}

Expected<void> check_host(std::string_view text, const Authority& a) {
  if (a.host.empty()) return make_error(fmt::format("empty host in URL '{}'", text));
  if (a.ipv6) {
    bool colon = false;
    for (char c : a.host) {
      if (!is_ipv6_char(c)) {
        return make_error(fmt::format("invalid IPv6 address '{}' in URL '{}'", a.host, text));
      }
      colon = colon || c == ':';
    }
    if (!colon) {
      return make_error(fmt::format("invalid IPv6 address '{}' in URL '{}'", a.host, text));
    }
    return {};
  }
  for (char c : a.host) {
    if (!is_reg_name_char(c)) {
      return make_error(fmt::format("invalid character '{}' in host of URL '{}'", c, text));
    }
  }
  return {};
}

Expected<std::uint16_t> parse_port(std::string_view text, std::string_view port) {
  if (port.empty()) return make_error(fmt::format("empty port in URL '{}'", text));
  std::uint32_t value = 0;
  for (char c : port) {
    if (c < '0' || c > '9') {
      return make_error(fmt::format("port '{}' in URL '{}' is not a number", port, text));
    }
    value = value * 10 + static_cast<std::uint32_t>(c - '0');
    if (value > 65535) break;
  }
  if (value == 0 || value > 65535) {
    return make_error(fmt::format("port '{}' in URL '{}' is out of range 1-65535", port, text));
  }
  return static_cast<std::uint16_t>(value);
}

// The target as sent: fragment dropped, bytes >= 0x80 percent-encoded, "/" prepended if
// it starts with '?' or is empty.
std::string make_target(std::string_view rest) {
  rest = rest.substr(0, rest.find('#'));
  std::string target;
  if (rest.empty() || rest.front() != '/') target.push_back('/');
  for (char c : rest) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80) {
      target.append(fmt::format("%{:02X}", u));
    } else {
      target.push_back(c);
    }
  }
  return target;
}

Expected<void> check_characters(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto u = static_cast<unsigned char>(text[i]);
    if (u <= 0x20 || u == 0x7f) {
      return make_error(
          fmt::format("URL '{}' contains a space or control character at offset {}", text, i));
    }
  }
  return {};
}

}  // namespace

std::string_view scheme_name(Scheme scheme) {
  return kSchemeNames[static_cast<std::size_t>(scheme)];
}

std::uint16_t default_port(Scheme scheme) {
  return (scheme == Scheme::Https || scheme == Scheme::Wss) ? 443 : 80;
}

Expected<Url> parse_url(std::string_view text) {
  if (text.empty()) return make_error("empty URL");
  if (Expected<void> r = check_characters(text); !r) return r.error();
  const std::size_t sep = text.find("://");
  if (sep == std::string_view::npos || sep == 0) {
    return make_error(fmt::format(
        "missing scheme in URL '{}' (expected http://, https://, ws:// or wss://)", text));
  }
  Expected<Scheme> scheme = parse_scheme(text, text.substr(0, sep));
  if (!scheme) return scheme.error();
  const std::string_view after = text.substr(sep + 3);
  const std::size_t auth_end = after.find_first_of("/?#");
  Expected<Authority> auth = split_authority(text, after.substr(0, auth_end));
  if (!auth) return auth.error();
  if (Expected<void> r = check_host(text, *auth); !r) return r.error();

  Url url;
  url.scheme = *scheme;
  url.port = default_port(url.scheme);
  if (auth->has_port) {
    Expected<std::uint16_t> port = parse_port(text, auth->port);
    if (!port) return port.error();
    url.port = *port;
  }
  url.host.reserve(auth->host.size());
  for (char c : auth->host)
    url.host.push_back(ascii_lower(c));
  url.target =
      make_target(auth_end == std::string_view::npos ? std::string_view() : after.substr(auth_end));
  url.host_header = auth->ipv6 ? "[" + url.host + "]" : url.host;
  if (url.port != default_port(url.scheme)) url.host_header += fmt::format(":{}", url.port);
  return url;
}

}  // namespace stampede::http
