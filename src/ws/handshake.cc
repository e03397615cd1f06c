#include "ws/handshake.h"

#include <openssl/evp.h>

#include <array>
#include <cstring>

#include <fmt/format.h>

#include "http/header.h"

namespace stampede::ws {
namespace {

constexpr std::string_view kGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

std::string base64(const unsigned char* data, std::size_t length) {
  std::string out(4 * ((length + 2) / 3), '\0');
  const int n =
      EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data, static_cast<int>(length));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

bool is_base64_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '/';
}

// 16 bytes in base64: 22 characters, the last of them carrying 2 bits (A, Q, g or w), "==".
bool is_key(std::string_view key) {
  if (key.size() != 24 || key.substr(22) != "==") return false;
  for (std::size_t i = 0; i < 22; ++i) {
    if (!is_base64_char(key[i])) return false;
  }
  return std::string_view("AQgw").find(key[21]) != std::string_view::npos;
}

// Whether a comma-separated header value lists `token` (case-insensitive).
bool has_token(std::string_view list, std::string_view token) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t'))
      item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t'))
      item.remove_suffix(1);
    if (http::iequals(item, token)) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

bool header_has_token(const http::RequestParser& request, std::string_view name,
                      std::string_view token) {
  for (const http::Header& h : request.headers()) {
    if (http::iequals(h.name, name) && has_token(h.value, token)) return true;
  }
  return false;
}

std::size_t count_headers(const http::RequestParser& request, std::string_view name) {
  std::size_t n = 0;
  for (const http::Header& h : request.headers())
    n += http::iequals(h.name, name) ? 1 : 0;
  return n;
}

}  // namespace

std::string accept_for(std::string_view key) {
  std::string input;
  input.reserve(key.size() + kGuid.size());
  input.append(key).append(kGuid);
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_Digest(input.data(), input.size(), digest.data(), &length, EVP_sha1(), nullptr);
  return base64(digest.data(), length);
}

std::string make_key(Random& random) {
  std::array<unsigned char, 16> bytes{};
  const std::uint64_t a = random.next(), b = random.next();
  std::memcpy(bytes.data(), &a, 8);
  std::memcpy(bytes.data() + 8, &b, 8);
  return base64(bytes.data(), bytes.size());
}

std::string request_prefix(const ClientRequest& request) {
  std::string out = fmt::format(
      "GET {} HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Version: 13\r\n",
      request.target, request.host);
  for (const auto& [name, value] : request.headers)
    fmt::format_to(std::back_inserter(out), "{}: {}\r\n", name, value);
  out += "Sec-WebSocket-Key: ";
  return out;
}

void finish_request(std::string& out, std::string_view prefix, std::string_view key) {
  out.assign(prefix);
  out.append(key).append("\r\n\r\n");
}

bool wants_websocket(const http::RequestParser& request) {
  return header_has_token(request, "upgrade", "websocket");
}

Verdict check_request(const http::RequestParser& request) {
  if (request.method() != "GET") return {400, "a WebSocket upgrade must be a GET", {}};
  if (request.http_minor() != 1) return {400, "a WebSocket upgrade needs HTTP/1.1", {}};
  if (!header_has_token(request, "connection", "upgrade")) {
    return {400, "a WebSocket upgrade needs Connection: Upgrade", {}};
  }
  // A body would stand between the head and the first frame: where the frames begin would
  // depend on who reads the framing (RFC 6455 4.1 sends none).
  if (request.chunked() || request.content_length().value_or(0) > 0) {
    return {400, "a WebSocket upgrade carries no body", {}};
  }
  // RFC 6455 11.3.1 and 11.3.5: each appears once in a request.
  if (count_headers(request, "sec-websocket-key") > 1 ||
      count_headers(request, "sec-websocket-version") > 1) {
    return {400, "Sec-WebSocket-Key and Sec-WebSocket-Version may appear only once", {}};
  }
  const auto version = request.header("sec-websocket-version");
  if (!version || *version != "13") return {426, "only Sec-WebSocket-Version 13 is supported", {}};
  const auto key = request.header("sec-websocket-key");
  if (!key || !is_key(*key)) return {400, "missing or malformed Sec-WebSocket-Key", {}};
  return {0, {}, *key};
}

void append_accept(std::string& out, std::string_view key) {
  fmt::format_to(std::back_inserter(out),
                 "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 "Sec-WebSocket-Accept: {}\r\n\r\n",
                 accept_for(key));
}

void append_refusal(std::string& out, const Verdict& verdict) {
  const std::string_view name = verdict.status == 426   ? "Upgrade Required"
                                : verdict.status == 503 ? "Service Unavailable"
                                                        : "Bad Request";
  const std::string_view extra = verdict.status == 426 ? "Sec-WebSocket-Version: 13\r\n" : "";
  fmt::format_to(std::back_inserter(out),
                 "HTTP/1.1 {} {}\r\n{}Content-Type: text/plain\r\nContent-Length: {}\r\n"
                 "Connection: close\r\n\r\n{}\n",
                 verdict.status, name, extra, verdict.reason.size() + 1, verdict.reason);
}

Expected<void> check_response(const Answer& answer, std::string_view key) {
  if (!answer.upgrade || !has_token(*answer.upgrade, "websocket")) {
    return make_error("101 answer without Upgrade: websocket");
  }
  if (!answer.connection || !has_token(*answer.connection, "upgrade")) {
    return make_error("101 answer without Connection: Upgrade");
  }
  if (!answer.accept) return make_error("101 answer without Sec-WebSocket-Accept");
  if (*answer.accept != accept_for(key)) return make_error("wrong Sec-WebSocket-Accept");
  if (answer.extensions) return make_error("101 answer selects an extension we did not offer");
  if (answer.protocol) return make_error("101 answer selects a subprotocol we did not offer");
  return {};
}

}  // namespace stampede::ws
