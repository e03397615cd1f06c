// RequestHook: the optional per-request seam of a run, for library callbacks (src/api) and
// scripts (src/script). A run without hooks (Config::hooks null) pays one null-pointer test per
// request and nothing else: requests come from the immutable RequestTemplate, bodies are dropped.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"

namespace stampede::loadgen {

// The response headers a hook reads (HookSet::capture_headers), whichever protocol carried
// them: over HTTP/1.1 the response parser's captures, over HTTP/2 the stream's (H2Client).
class ResponseHeaders {
 public:
  // The value of `name` (any case; only the captured names are found; several fields of that
  // name joined with ", "; trailers and 1xx heads are not seen), or nullopt when the response
  // had none.
  virtual std::optional<std::string_view> header(std::string_view name) const = 0;

 protected:
  ~ResponseHeaders() = default;
};

// How one request ended, as a hook sees it. The views are valid only during the call.
struct RequestOutcome {
  std::uint64_t index = 0;   // the request's unique index (1-based)
  std::uint32_t worker = 0;  // the worker (instance) that sent it
  int status = 0;            // the response's status; 0 when it failed without one
  int err = 0;               // errno of a transport failure (ECONNREFUSED...); 0 with a response
  // As recorded in the run's latency: from the request's begin (the start of its connect when
  // it opened its connection, else its first byte written); with --rps from its intended time.
  std::int64_t latency_ns = 0;
  // From the request's begin, with or without --rps (RateStats' uncorrected latency).
  std::int64_t uncorrected_ns = 0;
  // --rps: how far behind its intended time the request began (RateStats' send lag); else 0.
  // With --rps, latency_ns - uncorrected_ns == send_lag_ns.
  std::int64_t send_lag_ns = 0;
  // A failure without a response that has a name rather than an errno (err 0): over HTTP/2
  // "RST_STREAM CANCEL", "GOAWAY unprocessed"... (H2Client's names); else empty.
  std::string_view failure;
  std::string_view body;                      // when HookSet::capture_body, else empty
  const ResponseHeaders* response = nullptr;  // captured headers; null without a response
};

// What generate() made of one request.
struct Generated {
  bool ok = false;    // false: the request is not sent and counts as the error `error`
  bool head = false;  // a HEAD request: its response has no body
  std::string error;  // the error code counted when !ok ("script error"...)
};

// One per worker, used only on that worker's thread (one Lua state per worker, say).
class RequestHook {
 public:
  virtual ~RequestHook() = default;
  // Writes the bytes of request `index` into `out` (its previous contents are replaced): one
  // HTTP/1.1 request, over either protocol (an --http2 run parses it into HTTP/2 fields, and
  // what HTTP/2 cannot carry is not sent: loadgen/h2_generated.h). Called only when
  // HookSet::generates.
  virtual Generated generate(std::uint64_t index, std::string& out) = 0;
  // After every request, with or without a response. Returns an error code to count this
  // response as failed under that code (a content inspector's verdict), or an empty view.
  // The view must stay valid until the next call on this hook.
  virtual std::string_view on_outcome(const RequestOutcome& outcome) = 0;
  // On the worker's thread before the first request: the time (mono_ns(); 0: none) after
  // which the run sends nothing more. A call still running then may fail.
  virtual void on_start(std::int64_t deadline_ns) { (void)deadline_ns; }
  // Any thread: the run is stopping; a call in progress should fail soon.
  virtual void interrupt() {}
  // Whether the last generate() or on_outcome() failed in a way the hook cannot go on from
  // (a script over its limits, or interrupted): the worker then stops the run, as an interrupt
  // does, and the report shows what ran.
  virtual bool halted() const { return false; }
};

// Config::hooks: what a run asks of its hooks, and how to make one per worker.
struct HookSet {
  bool generates = false;     // every request comes from RequestHook::generate
  bool capture_body = false;  // RequestOutcome::body is filled (copied per response: a cost)
  // Response header names (any case) readable through RequestOutcome::response->header().
  std::vector<std::string> capture_headers;
  // Called by run() once per worker, on the calling thread, before any request is sent; an
  // error stops the run before it starts.
  std::function<Expected<std::unique_ptr<RequestHook>>(std::uint32_t worker)> make;
  // Optional: called by the command line after a run with its JSON report (a script's done()).
  std::function<void(const std::string& summary_json)> on_done;
};

}  // namespace stampede::loadgen
