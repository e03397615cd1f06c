// HTTP/1.1 writers: request formatting (once per run) and response heads (once per response).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/expected.h"
#include "http/header.h"
#include "http/query.h"

namespace stampede::http {

// A request to format. Headers given in `headers` win over the ones format_request adds:
// a "Host", "Content-Type", "Content-Length", "Transfer-Encoding" or "Connection" there
// suppresses the corresponding generated header.
struct RequestSpec {
  std::string method = "GET";
  std::string target = "/";  // origin-form "/p?q" or absolute-form "http://h/p" (proxies)
  std::string host;          // the Host header value; none when empty
  std::vector<std::pair<std::string, std::string>> headers;  // sent in this order, after Host
  std::string body;
  bool keep_alive = true;    // "Connection: keep-alive" or "Connection: close"
  std::string content_type;  // a Content-Type header when not empty
};

// The one rule every request stampede sends passes, however it was built: the command line's
// and rc file's (-H, loadgen::validate), a Lua script's (src/script), a library generator's
// (src/api); --index only puts digits into the target and body of a spec that passed. Refused:
// a method that is not a token; an empty target, one with a byte that is not visible ASCII, or one
// not in origin-form ("/p"), absolute-form ("http://h/p") or "*" (but for a CONNECT's); a
// header name that is not a token; a control character other than HTAB (CR, LF, NUL, ...) in
// a header value (or in `host`, `content_type`); any Content-Length or Transfer-Encoding header
// (the body is framed by the Content-Length format_request computes, so no header can
// contradict it); no Host at all (neither `host` nor a Host header: RFC 9112 3.2) or more than
// one; a CONNECT with a body (parsers take it for the tunnel's
// bytes or the next request).
// A spec it accepts formats to exactly one HTTP/1.1 request, which no parser reads another way.
// A plain function of the spec's bytes (no I/O, no state): a fuzz target can call it with
// anything, and format a spec it accepts.
Expected<void> validate_request(const RequestSpec& spec);

// Content-Length and Transfer-Encoding (any case): the headers only the body may set.
bool is_framing_header(std::string_view name);

// "METHOD target HTTP/1.1\r\n", then Host, the headers in order, Content-Type, Content-Length
// (when there is a body, or always for POST/PUT/PATCH), Connection, "\r\n" and the body.
std::string format_request(const RequestSpec& spec);

// Passed as content_length: the head gets no Content-Length (chunked or close-delimited body;
// put Transfer-Encoding in `extra` as needed).
inline constexpr std::uint64_t kNoContentLength = UINT64_MAX;

// The reason phrase of `status` ("OK", "Not Found"), "" for codes it does not know.
std::string_view reason_phrase(int status);

// What a response head says about the connection after it (RFC 9112 9.3, 9.6).
enum class Persistence : std::uint8_t {
  Close,      // "Connection: close": the server closes after this response
  KeepAlive,  // "Connection: keep-alive": an HTTP/1.0 client keeps the connection only then
  Implicit,   // no Connection header: an HTTP/1.1 connection persists by default
};

// What a response says when the connection stays open (keep_alive) or not, to an HTTP/1.0
// client (http10) or an HTTP/1.1 one: the fewest bytes that keep the client in step.
constexpr Persistence persistence_for(bool keep_alive, bool http10) {
  if (!keep_alive) return Persistence::Close;
  return http10 ? Persistence::KeepAlive : Persistence::Implicit;
}

// Appends "HTTP/1.1 <status> <reason>\r\n", the `extra` headers, "Content-Length: N\r\n"
// (not for 1xx and 204, which have none, nor for kNoContentLength), the Connection header
// `persistence` asks for, and the empty line, to `out`. No allocation once `out` has the
// capacity. `status` must be in 100..999; extra headers must be valid (not checked here).
void append_response_head(std::string& out, int status, std::span<const Header> extra,
                          std::uint64_t content_length, Persistence persistence);

// The same with "Connection: keep-alive" or "Connection: close" always written.
inline void append_response_head(std::string& out, int status, std::span<const Header> extra,
                                 std::uint64_t content_length, bool keep_alive) {
  append_response_head(out, status, extra, content_length,
                       keep_alive ? Persistence::KeepAlive : Persistence::Close);
}

}  // namespace stampede::http
