// The WebSocket opening handshake (RFC 6455 section 4): the key and accept values, the
// client's upgrade request, the server's check of it and its 101 answer, and the client's check
// of that answer. Strings in, strings out; no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "core/expected.h"
#include "core/random.h"
#include "http/request_parser.h"

namespace stampede::ws {

// Sec-WebSocket-Accept for a Sec-WebSocket-Key: base64(SHA-1(key + the RFC's GUID)).
std::string accept_for(std::string_view key);
// A fresh Sec-WebSocket-Key: 16 random bytes, base64 (24 characters).
std::string make_key(Random& random);

// What the client's upgrade request carries besides the fixed fields.
struct ClientRequest {
  std::string_view target = "/";  // path and query
  std::string_view host;          // the Host header value
  // Extra header fields (name, value), sent as given; Host, Upgrade, Connection and the
  // Sec-WebSocket-* fields are ours and must not be among them.
  std::span<const std::pair<std::string, std::string>> headers;
};

// The request up to (not including) the key: "GET target HTTP/1.1\r\n...Sec-WebSocket-Key: ".
// A connection appends its key and "\r\n\r\n" (see finish_request), so the rest is formatted
// once per run.
std::string request_prefix(const ClientRequest& request);
void finish_request(std::string& out, std::string_view prefix, std::string_view key);

// The server's verdict on a request that asked for an upgrade (RFC 6455 4.2.1).
struct Verdict {
  int status = 0;           // 0: accepted; else refuse with this status (400 or 426)
  std::string_view reason;  // why, for the refusal's body (static text)
  std::string_view key;     // the client's key when accepted (points into the parser)
};
// Whether the request asks for a WebSocket (an Upgrade header naming "websocket").
bool wants_websocket(const http::RequestParser& request);
// Checks method GET, HTTP/1.1, Connection: upgrade, no body, Sec-WebSocket-Key and -Version
// once each, Sec-WebSocket-Version 13 (else 426 with the supported version) and a key of 16
// bytes in base64; every other failure is 400.
Verdict check_request(const http::RequestParser& request);
// "HTTP/1.1 101 Switching Protocols" with Upgrade, Connection and Sec-WebSocket-Accept.
void append_accept(std::string& out, std::string_view key);
// The refusal for a failed check: the status, "Sec-WebSocket-Version: 13" with 426, the
// reason as a text body, "Connection: close".
void append_refusal(std::string& out, const Verdict& verdict);

// The header fields of a server's 101 answer that the client checks (nullopt: absent).
struct Answer {
  std::optional<std::string_view> upgrade;
  std::optional<std::string_view> connection;
  std::optional<std::string_view> accept;      // Sec-WebSocket-Accept
  std::optional<std::string_view> extensions;  // Sec-WebSocket-Extensions
  std::optional<std::string_view> protocol;    // Sec-WebSocket-Protocol
};
// The header names of Answer, lower case, for a parser's captures.
inline constexpr std::string_view kAnswerFields[] = {
    "upgrade", "connection", "sec-websocket-accept", "sec-websocket-extensions",
    "sec-websocket-protocol"};
// The client's check of the server's 101 answer (RFC 6455 4.1, each a MUST): Upgrade names
// websocket, Connection names upgrade, the accept value matches `key`, and the answer selects
// no extension and no subprotocol (our client asks for none). The error says what was wrong.
Expected<void> check_response(const Answer& answer, std::string_view key);

}  // namespace stampede::ws
