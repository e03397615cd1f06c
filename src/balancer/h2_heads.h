// The head translations of the balancer's HTTP/2 front (RFC 9113 8.2.2, 8.3): a client's
// request stream becomes an HTTP/1.1 request head for a backend, and a backend's HTTP/1.1
// response head becomes the fields of the stream's HEADERS frame. Pure functions, no I/O and no
// nghttp2: unit-tested without sockets.
//
// Requests: the pseudo-header fields are taken out (:method, :path, :authority; :scheme says
// nothing to an HTTP/1.1 backend), :authority becomes Host (a host field the client sent wins,
// as RFC 9113 8.3.1 lets them agree), split cookie fields are joined with "; " (8.2.3), and the
// rest goes through append_request_head() (head_rewrite.h: hop-by-hop fields dropped,
// X-Forwarded-For/-Proto added). nghttp2 has already refused connection-specific fields
// (connection, keep-alive, proxy-connection, transfer-encoding, upgrade, te other than
// "trailers") with a stream error, so none reaches here; they would be dropped anyway.
//
// Responses: the status code, then every field but the hop-by-hop ones, those the Connection
// field names, Transfer-Encoding (HTTP/2 has its own framing) and any x-backend, names
// lower-cased (RFC 9113 8.2.1), then x-backend. Interim 1xx heads before the final one are
// skipped, as over HTTP/1.1.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "balancer/buffer.h"
#include "http/header.h"

namespace stampede::balancer {

// A request's header fields as HPACK decoded them, kept in one string (the views nghttp2 gives
// its callbacks live only during the call). Bounded by the session's header-list limit.
class H2RequestFields {
 public:
  void add(std::string_view name, std::string_view value);
  void clear();

  std::string_view method() const { return method_; }
  std::string_view path() const { return path_; }
  std::string_view authority() const { return authority_; }
  bool has(std::string_view name) const;
  std::string_view value(std::string_view name) const;  // first one; empty when absent

  // Appends the HTTP/1.1 request head for a backend. `proto`: X-Forwarded-Proto ("http",
  // "https"). `chunked`: the body has no Content-Length and goes chunked ("Transfer-Encoding:
  // chunked" is added).
  void append_head(Buffer& out, std::string_view client_ip, std::string_view proto,
                   bool chunked) const;

 private:
  struct Field {
    std::uint32_t name_at, name_len, value_at, value_len;
  };
  std::string_view name_of(const Field& f) const { return {store_.data() + f.name_at, f.name_len}; }
  std::string_view value_of(const Field& f) const {
    return {store_.data() + f.value_at, f.value_len};
  }

  std::string store_;
  std::vector<Field> fields_;  // regular fields, in order
  std::string method_, path_, authority_;
};

// One response field for HEADERS: the name lower-cased in its H2ResponseHead, the value a view
// into the raw head or the backend name.
struct H2Field {
  std::string_view name;
  std::string_view value;
};

// Reused from one response to the next (a session keeps one): its storage is kept, so a
// translation allocates nothing once it has seen a head as large.
struct H2ResponseHead {
  int status = 0;
  std::vector<H2Field> fields;
  std::string names;  // the lower-cased names the fields view
};

// Translates the raw response head `raw` (as the response parser validated it: status line
// through the empty line) into `out`, whose fields then view `raw`, `backend_name` and
// out.names; false when it is not in that shape.
bool translate_response_head(std::string_view raw, std::string_view backend_name,
                             H2ResponseHead& out);

}  // namespace stampede::balancer
