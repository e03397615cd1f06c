// H2Request: the request of an --http2 run as HTTP/2 header fields, built once from the run's
// RequestSpec: the pseudo-headers (:method, :scheme, :authority from the host, :path with the
// --index slots), then the spec's headers lower-cased, without those HTTP/2 forbids (connection,
// keep-alive, proxy-connection, transfer-encoding, upgrade, host: RFC 9113 8.2.2), then
// content-type, content-length when there is a body; and the body, with its --index slots.
//
// Immutable after build(): shared read-only by the workers. render() fills a client's own
// H2Rendered; no allocation once its strings have grown to the largest request.
#pragma once

#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/writer.h"
#include "loadgen/indexed_text.h"

namespace stampede::loadgen {

// One request's fields and body, ready for nghttp2_submit_request (which copies the fields).
struct H2Rendered {
  std::vector<nghttp2_nv> fields;  // point into the H2Request and into `path` / `length`
  std::string path;
  std::string length;  // the content-length value
  std::string body;
};

class H2Request {
 public:
  // `scheme`: "http" or "https".
  static H2Request build(const http::RequestSpec& spec, std::string_view scheme,
                         std::string_view index_param);

  bool has_body() const { return has_body_; }
  std::string_view scheme() const { return fields_[1].second; }
  std::string_view authority() const { return fields_[2].second; }
  // The request for `index` into `out` (its previous contents replaced).
  void render(std::uint64_t index, H2Rendered& out) const;

 private:
  std::vector<std::pair<std::string, std::string>> fields_;  // all but :path and content-length
  IndexedText path_;
  IndexedText body_;
  bool has_body_ = false;
};

}  // namespace stampede::loadgen
