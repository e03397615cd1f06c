// The head rewrites of a proxy (RFC 9110 7.6): hop-by-hop fields stay on their own hop, the
// request gains X-Forwarded-For/-Proto, the response gains x-backend. Pure functions over
// parsed or raw heads, no I/O: unit-tested without sockets.
#pragma once

#include <span>
#include <string_view>

#include "balancer/buffer.h"
#include "http/connection_tokens.h"
#include "http/header.h"

namespace stampede::balancer {

// Raw-head helpers (heads as the response parser validated them), shared with h2_heads.cc:
// the next line without its CRLF (advancing `rest`), the status code of "HTTP/1.1 200 OK" (-1
// when not in that shape). A value's white space: http::trim_ows.
std::string_view next_head_line(std::string_view& rest);
int status_code_of(std::string_view status_line);

// A raw response head seen past its interim responses (100, 103, ...: each ends at its own
// empty line; a 101 is final): the final status line and its code (status_code_of), its field
// lines (`fields`, up to the end of `raw`), and the tokens its Connection fields name. A head
// naming more than http::ConnectionTokens::kMax is not in the expected shape either: its status
// is -1, so both fronts refuse it as a bad response (502). Shared with h2_heads.cc.
struct FinalHead {
  std::string_view status_line;
  int status = -1;
  std::string_view fields;
  http::ConnectionTokens tokens;
};
// Inline: it runs for every response, in both callers.
inline FinalHead final_response_head(std::string_view raw) {
  FinalHead head;
  std::string_view rest = raw;
  head.status_line = next_head_line(rest);
  head.status = status_code_of(head.status_line);
  // Interim responses (100, 103, ...) end at their own empty line; the final one follows.
  while (head.status >= 100 && head.status < 200 && head.status != 101) {
    while (!rest.empty() && !next_head_line(rest).empty()) {
    }
    head.status_line = next_head_line(rest);
    head.status = status_code_of(head.status_line);
  }
  head.fields = rest;
  for (std::string_view scan = rest; !scan.empty();) {
    const std::string_view line = next_head_line(scan);
    const std::size_t colon = line.find(':');
    if (colon != std::string_view::npos && http::iequals(line.substr(0, colon), "connection")) {
      head.tokens.add_list(line.substr(colon + 1));
    }
  }
  if (head.tokens.overflow()) head.status = -1;
  return head;
}

// Hop-by-hop by definition: Connection, Keep-Alive, Proxy-Connection, TE, Trailer, Upgrade
// (Upgrade is kept, with "Connection: upgrade", only on the exchange that opens a tunnel).
bool is_hop_by_hop(std::string_view name);

// Whether a request's Upgrade asks for WebSocket and nothing else: exactly one Upgrade field
// whose value is the token "websocket" (any case, optional white space around it). Only such
// an upgrade is tunnelled; any other (h2c, a list, another protocol) is dropped as hop-by-hop
// and the request is forwarded as plain HTTP/1.1.
bool is_websocket_upgrade(std::span<const http::Header> headers);

struct RequestHeadInput {
  std::string_view method;
  std::string_view target;
  std::span<const http::Header> headers;
  std::string_view client_ip;  // appended to X-Forwarded-For
  std::string_view proto = "http";
  bool drop_expect = false;  // the balancer answered "100 Continue" itself
  bool upgrade = false;      // tunnelling asked for: keep Upgrade, send "Connection: upgrade"
  bool http10 = false;       // an HTTP/1.0 request: it may lack the Host HTTP/1.1 requires
};

// Appends the request head to send upstream: the request line as received but always
// HTTP/1.1 (whatever the client's version, so backend connections are persistent and pooled),
// every end-to-end field (Host, Content-Length and Transfer-Encoding are never dropped,
// whatever Connection names), an empty Host when an HTTP/1.0 request had none (RFC 9112
// 3.2), X-Forwarded-For (existing values, then the client) and X-Forwarded-Proto. Returns
// false, having appended nothing, when the Connection fields name more than
// http::ConnectionTokens::kMax options: a hostile request, answered 400. (An HTTP/2 request
// never has one: nghttp2 refuses a connection field.)
bool append_request_head(Buffer& out, const RequestHeadInput& in);

struct ResponseHeadOptions {
  std::string_view backend_name;  // the x-backend value
  bool keep_alive = true;         // the client connection stays open after this response
  bool client_http10 = false;     // HTTP/1.0 clients need "Connection: keep-alive" to keep it
  bool upgrade = false;           // a 101 that starts a tunnel: keep Upgrade
  bool dechunk = false;           // the body is relayed de-chunked: drop Transfer-Encoding
};

// Rewrites a raw response head (status line through the empty line, as validated by the
// parser; interim 1xx responses before the final one are dropped) into `out`: drops
// hop-by-hop fields and any x-backend (and Transfer-Encoding with `dechunk`), adds x-backend
// and the client's Connection field. The status line says HTTP/1.1 whatever the backend's
// version (an HTTP/1.0 backend's "HTTP/1.0 200" would mean "this connection closes").
// Returns false when the head is not in the expected shape (then nothing usable was added).
bool append_response_head(Buffer& out, std::string_view raw, const ResponseHeadOptions& opt);

}  // namespace stampede::balancer
