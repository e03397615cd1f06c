// The request a run sends: loadtest's headers built from a Config, formatted once, and a
// template that substitutes a per-request index (--index) without allocating.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/expected.h"
#include "http/url.h"
#include "http/writer.h"
#include "loadgen/config.h"
#include "loadgen/indexed_text.h"

namespace stampede::loadgen {

// "0.1.0": the project's version.
std::string version();
// "stampede/0.1.0": the default user-agent.
std::string user_agent();

std::string upper_case(std::string_view text);
// No CR, LF or NUL: safe to send as (part of) a header value.
bool is_field_value(std::string_view text);

// loadtest's request for `config`: "host" from the URL, "accept: */*", "user-agent:
// stampede/VERSION" (each unless the config names it), the config's headers in order, the
// cookies as one "cookie" header, content-type ("text/plain" by default) and the body when
// there is one, and "Connection: keep-alive" or "Connection: close".
http::RequestSpec make_request_spec(const Config& config, const http::Url& url);

// The bytes of every request of a run. Without an index parameter they are fixed; with one, each
// occurrence of it in the request target and in the body is replaced by the request's index
// (and Content-Length adjusted). Immutable after build(): shared read-only by the workers.
class RequestTemplate {
 public:
  static RequestTemplate build(const http::RequestSpec& spec, std::string_view index_param);

  bool indexed() const { return indexed_; }
  // The request when !indexed().
  std::string_view fixed() const { return formatted_; }
  // The request for `index` into `out` (replacing its contents). No allocation once `out` has
  // grown to the largest request.
  void render(std::uint64_t index, std::string& out) const;

 private:
  std::string formatted_;  // format_request's output, the index parameter left in place
  bool indexed_ = false;
  // When indexed: the request up to the Content-Length value (all of it without one), then
  // the Content-Length value, then the rest (the end of the head and the body).
  IndexedText head_;
  IndexedText rest_;
  bool has_length_ = false;
  std::uint64_t body_fixed_bytes_ = 0;  // body length without the parameter occurrences
};

}  // namespace stampede::loadgen
