// ServerPlan: one test server, its options parsed and checked once.
//
// prepare() is the one place that checks a ServerOptions: the listening host's syntax, the
// status, percent, cores, id, limits and delays, the TLS options; it reads the body file and
// builds the one TLS server context (from --tls-cert/--tls-key, or a self-signed certificate).
// What a ServerPlan holds is therefore valid and typed: Server::start(ServerPlan) takes it as it
// is and never checks the options again. Every entry point (the command line, the C++ API, the
// tests) builds a ServerOptions and calls prepare(); its errors are one line for the user (no
// "stampede: " prefix), worded in this one place.
//
// prepare() does no network I/O: Server::start resolves the host (once) and binds.
#pragma once

#include <string>

#include "core/expected.h"
#include "server/server.h"
#include "tls/context.h"

namespace stampede::server {

// The configured response content, resolved once.
struct Content {
  std::string body;          // the default 2xx body: -b, -f, {"id":"NAME"} or "OK"
  std::string content_type;  // of `body`
};

struct ServerPlan {
  ServerOptions options;  // checked: the numbers and names the workers read, never re-checked
  Content content;        // the body file read, or the body the options imply
  int workers = 1;        // options.cores resolved (half the cores when 0)
  tls::ContextPtr tls;    // the server's TLS context; null for plain TCP

  bool secure() const { return tls != nullptr; }
};

// Checks `options` and builds their plan. Errors name the option ("--percent: from 0 to 100").
Expected<ServerPlan> prepare(ServerOptions options);

// The worker threads `cores` resolves to: itself when set, else half the cores (at least 1).
int resolve_cores(int cores);

}  // namespace stampede::server
