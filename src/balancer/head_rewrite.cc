#include "balancer/head_rewrite.h"

#include <cstring>

namespace stampede::balancer {
namespace {

// Fields a Connection list may not remove: dropping them would change the message framing
// or its target (a classic request-smuggling lever).
bool is_protected(std::string_view name) {
  return http::iequals(name, "host") || http::iequals(name, "content-length") ||
         http::iequals(name, "transfer-encoding");
}

bool drop_field(std::string_view name, const http::ConnectionTokens& tokens, bool upgrade) {
  if (upgrade && http::iequals(name, "upgrade")) return false;
  if (is_hop_by_hop(name)) return true;
  return tokens.contains(name) && !is_protected(name);
}

void append_field(Buffer& out, std::string_view name, std::string_view value) {
  out.append(name);
  out.append(": ", 2);
  out.append(value);
  out.append("\r\n", 2);
}

}  // namespace

std::string_view next_head_line(std::string_view& rest) {
  // A validated head's lines end in CRLF: the first LF, after a CR, ends the first CRLF. Any
  // other LF (bytes not checked) takes the search for "\r\n".
  const void* found = std::memchr(rest.data(), '\n', rest.size());
  if (found != nullptr) {
    const std::size_t lf = static_cast<std::size_t>(static_cast<const char*>(found) - rest.data());
    if (lf > 0 && rest[lf - 1] == '\r') {
      const std::string_view line = rest.substr(0, lf - 1);
      rest.remove_prefix(lf + 1);
      return line;
    }
  }
  std::size_t eol = rest.find("\r\n");
  if (eol == std::string_view::npos) {
    std::string_view line = rest;
    rest = {};
    return line;
  }
  std::string_view line = rest.substr(0, eol);
  rest.remove_prefix(eol + 2);
  return line;
}

int status_code_of(std::string_view line) {
  if (line.size() < 12 || line.substr(0, 5) != "HTTP/") return -1;
  int code = 0;
  for (std::size_t i = 9; i < 12; ++i) {
    if (line[i] < '0' || line[i] > '9') return -1;
    code = code * 10 + (line[i] - '0');
  }
  return code;
}

bool is_hop_by_hop(std::string_view name) {
  // By length first: it runs for every field of every head relayed, and most names have none
  // of these lengths.
  switch (name.size()) {
    case 2:
      return http::iequals(name, "te");
    case 7:
      return http::iequals(name, "trailer") || http::iequals(name, "upgrade");
    case 10:
      return http::iequals(name, "connection") || http::iequals(name, "keep-alive");
    case 16:
      return http::iequals(name, "proxy-connection");
    default:
      return false;
  }
}

bool is_websocket_upgrade(std::span<const http::Header> headers) {
  const http::Header* upgrade = nullptr;
  for (const http::Header& h : headers) {
    if (!http::iequals(h.name, "upgrade")) continue;
    if (upgrade != nullptr) return false;  // two Upgrade fields: a list, not websocket alone
    upgrade = &h;
  }
  if (upgrade == nullptr) return false;
  std::string_view value = upgrade->value;
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
    value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
    value.remove_suffix(1);
  return http::iequals(value, "websocket");
}

bool append_request_head(Buffer& out, const RequestHeadInput& in) {
  http::ConnectionTokens tokens;
  tokens.add_fields(in.headers);
  if (tokens.overflow()) return false;
  out.append(in.method);
  out.append(" ", 1);
  out.append(in.target);
  out.append(" HTTP/1.1\r\n");
  bool has_host = !in.http10;  // an HTTP/1.1 request goes as it came (Host is its own rule)
  for (const http::Header& h : in.headers) {
    if (!has_host) has_host = http::iequals(h.name, "host");
    if (drop_field(h.name, tokens, in.upgrade) || http::iequals(h.name, "x-forwarded-proto")) {
      continue;
    }
    if (http::iequals(h.name, "x-forwarded-for")) continue;  // merged below, in order
    if (in.drop_expect && http::iequals(h.name, "expect")) continue;
    append_field(out, h.name, h.value);
  }
  if (!has_host) out.append("Host: \r\n");
  out.append("X-Forwarded-For: ");
  for (const http::Header& h : in.headers) {
    if (!http::iequals(h.name, "x-forwarded-for") || h.value.empty()) continue;
    out.append(h.value);
    out.append(", ", 2);
  }
  out.append(in.client_ip);
  out.append("\r\nX-Forwarded-Proto: ");
  out.append(in.proto);
  out.append(in.upgrade ? "\r\nConnection: upgrade\r\n\r\n" : "\r\n\r\n");
  return true;
}

bool append_response_head(Buffer& out, std::string_view raw, const ResponseHeadOptions& opt) {
  const FinalHead head = final_response_head(raw);
  const std::string_view status_line = head.status_line;
  if (head.status < 0) return false;
  const http::ConnectionTokens& tokens = head.tokens;
  std::string_view rest = head.fields;
  const std::size_t start = out.size();
  // Our own version, not the backend's (RFC 9110 2.5: an intermediary sends its own
  // HTTP-version): "HTTP/1.0 200" relayed as it came would tell a client that keeps the
  // connection that the connection ends after this response. status_of checked the shape
  // "HTTP/d.d ddd".
  out.append("HTTP/1.1");
  out.append(status_line.substr(8));
  out.append("\r\n", 2);
  while (!rest.empty()) {
    std::string_view line = next_head_line(rest);
    if (line.empty()) break;
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      out.truncate(start);
      return false;
    }
    std::string_view name = line.substr(0, colon);
    if (drop_field(name, tokens, opt.upgrade) || http::iequals(name, "x-backend")) continue;
    if (opt.dechunk && http::iequals(name, "transfer-encoding")) continue;
    out.append(line);
    out.append("\r\n", 2);
  }
  append_field(out, "x-backend", opt.backend_name);
  if (opt.upgrade) {
    out.append("Connection: upgrade\r\n");
  } else if (!opt.keep_alive) {
    out.append("Connection: close\r\n");
  } else if (opt.client_http10) {
    out.append("Connection: keep-alive\r\n");
  }
  out.append("\r\n", 2);
  return true;
}

}  // namespace stampede::balancer
