// Route: how the generator reaches its target. The proxy (--proxy), the TLS client context for
// https:// and wss://, and what a proxy needs: the CONNECT request for https://, ws:// and wss://,
// the absolute-form target for http://. Built once by prepare() (plan.h).
#pragma once

#include <optional>
#include <string>

#include "core/expected.h"
#include "http/url.h"
#include "loadgen/config.h"
#include "net/socket.h"
#include "tls/context.h"

namespace stampede::loadgen {

struct Route {
  std::optional<http::Url> proxy;  // --proxy, parsed: an http://host:port
  tls::ContextPtr tls;             // https: the client context (the run owns it); else null
  std::string server_name;         // https: SNI and the certificate's expected host
  std::string connect_request;  // https, ws, wss through a proxy: "CONNECT host:port HTTP/1.1..."
  bool absolute_form = false;   // http through a proxy: "GET http://host:port/path HTTP/1.1"
};

// Parses and checks the proxy and TLS options of `config` for `url` (proxy URL an
// http://host:port, protocol name known, certificate files readable) and builds the TLS context
// (one per run). One-line errors, as bad input. No network I/O.
Expected<Route> make_route(const Config& config, const http::Url& url);

// Resolves where sockets connect: the proxy's host with one, else the URL's (blocking: at
// start-up).
Expected<net::Address> resolve_route(const Route& route, const http::Url& url);

// The name a failure code is reported under: a tls/errors.h name, else the errno's name.
std::string failure_name(int err);

}  // namespace stampede::loadgen
