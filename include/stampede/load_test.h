// The load generator as a library: loadtest's API for automated load tests.
//
//   stampede::LoadTestOptions options;
//   options.url = "http://127.0.0.1:8080/";
//   options.max_requests = 1000;
//   stampede::Result result = stampede::load_test(options);  // blocks
//   result.show(std::cout);                                  // loadtest's text report
//   if (result.percentile(99) > 5.0) ...                     // milliseconds
//
// Bad options throw stampede::Error before anything is sent; a test that ran returns a Result
// whatever its errors (they are counted in it).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "stampede/callbacks.h"
#include "stampede/error.h"

namespace stampede {
inline namespace api {

// Every option of `stampede [options] URL`, typed; the defaults are the command line's.
struct LoadTestOptions {
  std::string url;                 // http://host[:port]/path?query
  std::uint64_t max_requests = 0;  // -n; 0: no limit
  double max_seconds = 0;          // -t; 0: no limit (10 s when max_requests is 0 too)
  std::uint32_t concurrency = 10;  // -c: connections
  std::uint32_t cores = 1;         // --cores: worker threads (instances)
  // --rps: open loop at this total rate (fractional is fine); latency from intended send times.
  std::optional<double> requests_per_second;
  bool keep_alive = false;  // -k
  // --http2: HTTP/2 (h2c with prior knowledge for http://, ALPN h2 for https://), keep-alive
  // implied; `streams` requests in flight per connection (--streams, 1 to 1000). The callbacks
  // keep their meaning: a generated request becomes HTTP/2 fields (docs/output.md).
  bool http2 = false;
  std::uint32_t streams = 1;

  std::string method;                          // -m; empty: GET, or POST with a body
  std::map<std::string, std::string> headers;  // -H name -> value
  std::vector<std::string> cookies;            // -C "name=value"
  std::optional<std::string> body;             // -P/-A/--data; with no method set, POST
  // loadtest's `body` given as an object: JSON text, checked before the run and sent as is, with
  // content_type application/json unless set. Not together with `body`.
  std::optional<std::string> json_body;
  std::string content_type;              // -T; text/plain when a body is sent
  std::chrono::milliseconds timeout{0};  // -d/--timeout: per request; 0: none

  std::string index_param;  // --index: replaced in the path and body by each request's index
  IndexParamCallback index_param_callback;  // with index_param: the replacement text instead

  // https: --insecure (accept any certificate), --cert/--key (a client certificate, PEM).
  bool insecure = false;
  std::string cert;
  std::string key;

  std::vector<std::string> count_headers;  // response headers whose values are counted

  // Callbacks (stampede/callbacks.h: thread and cost).
  StatusCallback status_callback;
  ContentInspector content_inspector;
  RequestGenerator request_generator;
  bool collect_body = false;                 // RequestResult::body for the callbacks
  std::vector<std::string> collect_headers;  // RequestResult::headers for the callbacks

  std::ostream* progress = nullptr;  // loadtest's progress lines every 5 s; none when null
};

// What a test measured: the content of `stampede --json` (docs/output.md). Copyable.
class Result {
 public:
  // Settings.
  std::string url;
  std::uint32_t cores = 0;
  std::uint64_t max_requests = 0;
  double max_seconds = 0;
  std::uint32_t concurrency = 0;
  bool keep_alive = false;
  std::uint32_t clients = 0;
  // Outcome.
  std::uint64_t total_requests = 0;
  std::uint64_t total_errors = 0;
  double total_time_seconds = 0;
  double mean_latency_ms = 0;
  double min_latency_ms = 0;
  double max_latency_ms = 0;
  double latency_stddev_ms = 0;
  double effective_rps = 0;
  std::map<std::string, std::uint64_t> error_codes;  // "500", "ECONNREFUSED", custom codes
  std::map<int, std::uint64_t> status_codes;
  std::map<std::string, std::map<std::string, std::uint64_t>> header_counts;
  std::uint64_t bytes_received = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t connections_opened = 0;
  bool interrupted = false;  // stopped early

  // The latency below which `percent` (0..100) of the requests were, in milliseconds.
  double percentile(double percent) const;
  // loadtest's text report, as `stampede URL` prints it.
  void show(std::ostream& out) const;
  // The JSON object `stampede --json URL` prints.
  std::string to_json() const;

  struct Impl;  // the implementation's result; opaque
  explicit Result(std::shared_ptr<const Impl> impl);

 private:
  std::shared_ptr<const Impl> impl_;
};

// Runs a load test and blocks until it ends. Throws stampede::Error for bad options or when
// the test cannot start (name resolution...), before any request is sent.
Result load_test(const LoadTestOptions& options);

// A load test running in the background. Movable; its destructor stops and waits for it.
class LoadTest {
 public:
  LoadTest(LoadTest&&) noexcept;
  LoadTest& operator=(LoadTest&&) noexcept;
  ~LoadTest();

  // Any thread: end the test early; the result covers what ran (interrupted is true).
  void stop();
  // Blocks until the test ends and returns its result. Call once. Throws stampede::Error
  // when the test could not start.
  Result wait();

  struct Impl;
  explicit LoadTest(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

// Checks the options (throwing stampede::Error as load_test does) and starts the test on a
// thread of its own.
LoadTest start_load_test(const LoadTestOptions& options);

}  // namespace api
}  // namespace stampede
