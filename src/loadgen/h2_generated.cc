#include "loadgen/h2_generated.h"

#include <algorithm>
#include <array>

#include "http/header.h"

namespace stampede::loadgen {
namespace {

// Connection-specific fields HTTP/2 forbids (RFC 9113 8.2.2); host becomes :authority.
constexpr std::array<std::string_view, 6> kConnectionSpecific = {
    "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host"};

http::ParserLimits generated_limits() {
  http::ParserLimits limits;
  limits.max_header_bytes = kMaxGeneratedHead;
  limits.max_uri_bytes = kMaxGeneratedHead;
  return limits;
}

std::string_view parse_failure_name(const http::ParseError& error) {
  const bool too_large = error.status == 413 || error.status == 414 || error.status == 431;
  return too_large ? kRequestTooLarge : kRequestMalformed;
}

bool is_connection_specific(std::string_view name) {
  return std::any_of(kConnectionSpecific.begin(), kConnectionSpecific.end(),
                     [name](std::string_view dropped) { return http::iequals(name, dropped); });
}

void append_field(H2Fields& out, std::string_view name, std::string_view value, bool lower) {
  H2Fields::Span span{out.text.size(), name.size(), 0, value.size()};
  for (char c : name)
    out.text.push_back(lower ? http::ascii_lower(c) : c);
  span.value_at = out.text.size();
  out.text.append(value);
  out.spans.push_back(span);
}

// The authority and path of an absolute-form target ("scheme://authority[/path][?query]"),
// false when its scheme is not `scheme` (validate_request and llhttp took the rest).
bool split_absolute(std::string_view target, std::string_view scheme, std::string_view& authority,
                    std::string_view& path) {
  const std::size_t colon = target.find("://");
  if (colon == std::string_view::npos || !http::iequals(target.substr(0, colon), scheme)) {
    return false;
  }
  const std::string_view rest = target.substr(colon + 3);
  const std::size_t end = std::min(rest.find('/'), rest.find('?'));
  authority = rest.substr(0, end);
  path = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  return true;
}

}  // namespace

void H2Fields::fields_into(std::vector<nghttp2_nv>& out) const {
  out.clear();
  // nghttp2 takes non-const pointers but does not write through them.
  auto* base = reinterpret_cast<std::uint8_t*>(const_cast<char*>(text.data()));
  for (const Span& s : spans) {
    out.push_back(nghttp2_nv{base + s.name_at, base + s.value_at, s.name_size, s.value_size,
                             NGHTTP2_NV_FLAG_NONE});
  }
}

H2Generated::H2Generated(std::string_view scheme, std::string_view authority)
    : parser_(generated_limits()), scheme_(scheme), authority_(authority) {}

std::string_view H2Generated::translate(std::string_view bytes, H2Fields& out) {
  out.text.clear();
  out.spans.clear();
  out.body.clear();
  parser_.reset();
  const http::Step head = parser_.feed(bytes);
  if (head.event == http::Event::Error) return parse_failure_name(parser_.error());
  if (head.event != http::Event::HeadComplete) return kRequestMalformed;  // empty or truncated
  if (parser_.chunked() || parser_.upgrade()) return kRequestNotForH2;
  const std::string_view rest = bytes.substr(head.consumed);
  const http::Step message = parser_.feed(rest);
  if (message.event == http::Event::Error) return parse_failure_name(parser_.error());
  // Not complete: a body cut short. Bytes after it: a second request (or garbage).
  if (message.event != http::Event::MessageComplete || message.consumed != rest.size()) {
    return kRequestMalformed;
  }
  const std::string_view target = parser_.target();
  if (target.empty()) return kRequestMalformed;
  http::ConnectionTokens options;
  options.add_fields(parser_.headers());
  if (options.overflow()) return kRequestMalformed;
  const std::string_view host = parser_.header("host").value_or(std::string_view());
  std::string_view authority = host.empty() ? std::string_view(authority_) : host;
  std::string_view path = target;
  if (target == "*") {
    if (parser_.method() != "OPTIONS") return kRequestNotForH2;
  } else if (target.front() != '/') {
    std::string_view own;
    if (!split_absolute(target, scheme_, own, path)) return kRequestNotForH2;
    // RFC 9113 8.3.1: no userinfo in :authority; RFC 9112 3.2.2: the target's authority wins
    // over Host, so the two must agree for the request to mean one thing.
    if (own.find('@') != std::string_view::npos || (!host.empty() && !http::iequals(own, host))) {
      return kRequestNotForH2;
    }
    authority = own;
    if (path.empty()) path = "/";
  }
  append_field(out, ":method", parser_.method(), /*lower=*/false);
  append_field(out, ":scheme", scheme_, false);
  append_field(out, ":authority", authority, false);
  if (!path.empty() && path.front() == '?') {
    append_field(out, ":path", "/", false);
    out.text.append(path);  // "/?q": the query after the "/" just written
    out.spans.back().value_size += path.size();
  } else {
    append_field(out, ":path", path, false);
  }
  add_fields(options, out);
  out.body.assign(rest.substr(0, message.consumed));
  return {};
}

void H2Generated::add_fields(const http::ConnectionTokens& options, H2Fields& out) {
  for (const http::Header& h : parser_.headers()) {
    if (is_connection_specific(h.name) || options.contains(h.name)) continue;
    if (http::iequals(h.name, "te") && !http::iequals(h.value, "trailers")) continue;
    append_field(out, h.name, h.value, /*lower=*/true);
  }
}

}  // namespace stampede::loadgen
