// H2Generated: a request a RequestHook generated, made into HTTP/2 fields. The hook's contract
// is one for both protocols (RequestHook::generate writes HTTP/1.1 request bytes); over HTTP/2
// those bytes are parsed once, by the project's own http::RequestParser (strict: what our
// servers refuse is refused here), and become:
//   :method   the request line's method (one llhttp knows);
//   :scheme   the run's ("http" or "https");
//   :authority the Host field; the authority of an absolute-form target ("http://h/p"), which
//             must then be the Host's and come with the run's scheme; the run's URL's for an
//             HTTP/1.0 request without Host;
//   :path     the origin-form target; the path and query of an absolute-form one ("/" when it
//             has none); "*" for OPTIONS only;
// then every other field in order, its name lower-cased, without the connection-specific ones
// (RFC 9113 8.2.2: connection, keep-alive, proxy-connection, transfer-encoding, upgrade, and
// every field the Connection fields name, http::ConnectionTokens; te unless it is "trailers")
// and without host; the body is the Content-Length body, sent as DATA.
//
// What is not sent, under one of three names (counted as a failing generate() is):
//   "request malformed"       not exactly one complete HTTP/1.1 request: garbage, empty,
//                             truncated, a second request after it, or anything RequestParser
//                             refuses with a 400 or 505 (no Host in HTTP/1.1, two Hosts, a bad
//                             name, bare LF, Content-Length with Transfer-Encoding...), or
//                             whose Connection fields name more than
//                             http::ConnectionTokens::kMax options (16);
//   "request too large"       a head, target or field over kMaxGeneratedHead (64 KiB; the
//                             client's HPACK output is allowed twice that, so any head under
//                             it goes out whole), or a body over 1 GiB;
//   "request not for HTTP/2"  a well-formed request HTTP/2 cannot carry: a chunked body
//                             (refused, not de-chunked: our own generators never frame a body
//                             that way, so one that does is a hook's mistake to show, not to
//                             repair), an upgrade (Connection: upgrade, or CONNECT), "*" with
//                             another method than OPTIONS, an absolute-form target whose
//                             scheme is not the run's or whose authority is not the Host's or
//                             has userinfo ("user@").
//
// One per H2Client (the worker's thread only). No allocation per request once its buffers have
// grown to the largest request.
#pragma once

#include <nghttp2/nghttp2.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "http/connection_tokens.h"
#include "http/request_parser.h"

namespace stampede::loadgen {

inline constexpr std::string_view kRequestMalformed = "request malformed";
inline constexpr std::string_view kRequestTooLarge = "request too large";
inline constexpr std::string_view kRequestNotForH2 = "request not for HTTP/2";

// The largest generated head (request line and fields) sent over HTTP/2.
inline constexpr std::size_t kMaxGeneratedHead = 64 * 1024;

// One generated request's fields and body. Fields are kept as offsets into `text`, so that the
// object may move between translate() and fields_into().
struct H2Fields {
  struct Span {
    std::size_t name_at, name_size, value_at, value_size;
  };
  std::string text;  // the names (lower-cased) and values, back to back
  std::vector<Span> spans;
  std::string body;

  // The fields for nghttp2_submit_request (which copies them), pointing into `text`.
  void fields_into(std::vector<nghttp2_nv>& out) const;
};

class H2Generated {
 public:
  // `scheme`: the run's ("http" or "https"); `authority`: the run's URL's host[:port].
  H2Generated(std::string_view scheme, std::string_view authority);

  // Parses `bytes` (one HTTP/1.1 request) into `out`: an empty view, or the name of why the
  // request is not sent (a static string).
  std::string_view translate(std::string_view bytes, H2Fields& out);

 private:
  // The fields after the pseudo-headers, without those `options` (the Connection fields') name.
  void add_fields(const http::ConnectionTokens& options, H2Fields& out);

  http::RequestParser parser_;
  std::string scheme_;
  std::string authority_;
};

}  // namespace stampede::loadgen
