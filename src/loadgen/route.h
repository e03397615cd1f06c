// Route: how the generator reaches its target. The address to connect to (the target's, or the
// proxy's with --proxy), the TLS client context for https:// and wss://, and what a proxy needs:
// the CONNECT request for https://, ws:// and wss://, the absolute-form target for http://.
#pragma once

#include <string>

#include "core/result.h"
#include "http/url.h"
#include "loadgen/config.h"
#include "net/socket.h"
#include "tls/context.h"

namespace stampede::loadgen {

struct Route {
  net::Address address;         // where sockets connect
  tls::ContextPtr tls;          // https: the client context (the run owns it); else null
  std::string server_name;      // https: SNI and the certificate's expected host
  std::string connect_request;  // https, ws, wss through a proxy: "CONNECT host:port HTTP/1.1..."
  bool absolute_form = false;   // http through a proxy: "GET http://host:port/path HTTP/1.1"
};

// Checks the TLS and proxy options of `config` for `url` (files readable, protocol name known,
// proxy URL an http://host:port): one-line errors, as bad input.
Result<void> validate_route(const Config& config, const http::Url& url);

// Resolves the addresses (blocking: at start-up) and builds the TLS context.
Result<Route> make_route(const Config& config, const http::Url& url);

// The name a failure code is reported under: a tls/errors.h name, else the errno's name.
std::string failure_name(int err);

}  // namespace stampede::loadgen
