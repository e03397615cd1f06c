// Per-request callbacks of a load test (loadtest's statusCallback, contentInspector,
// requestGenerator and indexParamCallback).
//
// Thread: every callback runs on the worker thread that sent the request, while that worker's
// other connections wait: with cores > 1 callbacks run concurrently and must be thread-safe,
// and a slow callback slows the test. A test with no callback set pays nothing for them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stampede {
inline namespace api {

using Labels = std::map<std::string, std::string>;

// One finished request.
struct RequestResult {
  std::uint64_t request_index = 0;   // unique across instances, from 1
  std::uint32_t instance_index = 0;  // the worker thread (0..cores-1)
  int status_code = 0;               // 0: no response (see the callback's error)
  // From the request's start (the start of its connect when it opened its connection, else its
  // first byte sent; with rps, its intended send time) to the last byte received.
  double request_elapsed_ms = 0;
  // The response body: only when LoadTestOptions::collect_body (a copy per response: costs
  // memory bandwidth; leave it off for throughput tests). Valid during the callback only.
  std::string_view body;
  // Values of the headers named in LoadTestOptions::collect_headers that the response had
  // (names as given there). Valid during the callback only.
  std::vector<std::pair<std::string_view, std::string_view>> headers;
  const Labels* labels = nullptr;  // the request_generator's labels for this request, if any
  // Set by a content_inspector to count this response as failed under this error code.
  std::string custom_error;
};

// The sending instance's running totals when the callback runs.
struct LatencyInfo {
  std::uint64_t instance_requests = 0;  // finished by this instance so far, this one included
  std::uint64_t instance_errors = 0;
  double mean_latency_ms = 0;  // over those requests
};

// After every request. `error` is empty for a success, else the error code counted for it:
// "500", "ECONNREFUSED", "ETIMEDOUT", a content inspector's custom code...
using StatusCallback = std::function<void(const std::string& error, const RequestResult& result,
                                          const LatencyInfo& latency)>;

// Before the status callback, for responses only: set result.custom_error to fail a response
// (a 200 with the wrong content, say); it is counted under that code in Result::error_codes.
using ContentInspector = std::function<void(RequestResult& result)>;

// A request as a request_generator builds it. Filled with the test's request first (method,
// path with query, headers, body): change what should differ. Host, Content-Length and
// Connection are added when sending.
struct GeneratedRequest {
  std::string method;
  std::string path;  // origin-form: "/p?q"
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  Labels labels;  // handed to the status callback and content inspector as result.labels
};

// Builds request `request_index` (unique, from 1). Throwing (any exception), or a request the
// framing rule refuses (a method that is not a token, CR or LF in the path or a header, any
// Content-Length or Transfer-Encoding header, two Host headers: docs/scripting.md), fails that
// one request: it is not sent and is counted under the error code "generator error".
using RequestGenerator = std::function<void(std::uint64_t request_index, GeneratedRequest& r)>;

// With index_param: the text that replaces the parameter for request `request_index`, instead
// of the index itself.
using IndexParamCallback = std::function<std::string(std::uint64_t request_index)>;

}  // namespace api
}  // namespace stampede
