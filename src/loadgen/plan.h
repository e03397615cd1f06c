// Plan: one load-generator run, parsed and checked once.
//
// prepare() is the one place that reads a Config's text: it parses the URL and the proxy URL,
// checks the TLS options and builds the run's one TLS client context, builds the request (its
// spec and its formatted bytes) and, for ws:// and wss://, the upgrade and the message, and checks
// every number and name. What a Plan holds is therefore already valid and typed: the engine
// (run(const Plan&), runner.h) takes it as it is and never parses or checks the Config again.
// Every entry point (the command line and .loadtestrc, the C++ API, the lab, tests) builds a
// Config and calls prepare(); its errors are one line for the user, worded in this one place.
//
// prepare() does no network I/O (it reads only the certificate files and the trust store):
// resolve() looks the target (or the proxy) up, once, when the caller wants a failure to
// resolve before the run starts; run() resolves a plan that has no address yet.
//
// A Plan is built on one thread, then read (never written) by the run's workers; it must outlive
// the run, since connections point into it (the request bytes, the TLS context, the ws plan).
#pragma once

#include <memory>
#include <optional>

#include "core/expected.h"
#include "http/url.h"
#include "http/writer.h"
#include "loadgen/config.h"
#include "loadgen/h2_request.h"
#include "loadgen/request.h"
#include "loadgen/request_log.h"
#include "loadgen/route.h"
#include "loadgen/ws_client.h"
#include "net/socket.h"

namespace stampede::loadgen {

struct Plan {
  Config config;  // the settings as given: read for the numbers and names, never re-parsed
  http::Url url;  // config.url, parsed
  Route route;    // the proxy, the TLS context, the CONNECT request or the absolute form
  // The run's request, its target in origin form and the host among its headers: what a
  // script's or a callback's request starts from.
  http::RequestSpec spec;
  // The bytes of each request (the target in absolute form through an http:// proxy).
  RequestTemplate request;
  WsPlan ws;     // ws://, wss://: the upgrade and the message every client follows
  H2Request h2;  // --http2: the request as HTTP/2 fields
  // --log: the file, open (and its CSV header written) before the run; null without --log.
  // Every run of the plan appends its lines to it.
  std::shared_ptr<LogFile> log;
  // Where sockets connect (the proxy's address with one), once resolve() ran.
  std::optional<net::Address> address;

  bool websocket() const { return url.websocket(); }
};

// Parses and checks `config` into a Plan: the URL (http, https, ws, wss), the proxy and TLS
// options, counts >= 1, durations >= 0, the rate, the header names to count, the request
// (http::validate_request), and what a WebSocket URL cannot do (a rate, hooks, the index in
// its URL), and opens the --log file (creating it: its only side effect). Errors are one line for
// the user.
Expected<Plan> prepare(Config config);

// Whether the plan's run can take hooks (scripts, callbacks): not for a WebSocket URL, nor with
// --pipeline above 1; the error says why. attach_hooks checks it; a caller that builds hooks at
// a cost (loading scripts) asks first.
Expected<void> hooks_allowed(const Plan& plan);

// Sets the run's hooks once the request they start from (plan.spec) is known; refuses them for a
// WebSocket URL, as prepare() refuses Config::hooks.
Expected<void> attach_hooks(Plan& plan, std::shared_ptr<const HookSet> hooks);

// Resolves the host to connect to (blocking: at start-up) into plan.address.
Expected<void> resolve(Plan& plan);

}  // namespace stampede::loadgen
