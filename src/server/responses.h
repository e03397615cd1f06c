// Responses: the bytes the server answers with. The common case is canned (built once, only
// the Date rewritten once a second); everything else is formatted straight into the caller's
// output buffer, without allocating once that buffer has grown.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "http/writer.h"
#include "server/http_date.h"
#include "server/shared.h"

namespace stampede::server {

// The canned answers: the default (200 and the configured body) and the configured error
// (-e/-P: that status, or 500, with "ERROR").
enum class Canned : std::uint8_t { Ok, Error };

// How one response ends the exchange.
struct Framing {
  // Close: "Connection: close"; KeepAlive: "Connection: keep-alive" (an HTTP/1.0 client that
  // asked for it); Implicit: no Connection header (HTTP/1.1 persists by default, RFC 9112 9.3).
  http::Persistence persistence = http::Persistence::Implicit;
  bool head_only = false;  // a HEAD request: the head (with Content-Length), no body
};

// A response built for one request (query overrides). The body is `size` filler bytes when
// set, else the default body for status < 400 and "ERROR" from 400 on; 204 and 304 have none.
struct CustomResponse {
  int status = 200;
  std::optional<std::uint64_t> size;
};

// One per worker thread: it owns its copy so that the Date can be rewritten in place.
class Responses {
 public:
  explicit Responses(const Shared& shared);

  // Rewrites the Date of every response to `unix_seconds` (once a second, on the worker).
  void set_date(std::int64_t unix_seconds);

  void append_canned(std::string& out, Canned which, Framing framing) const;
  void append_custom(std::string& out, const CustomResponse& response, Framing framing) const;
  // The JSON of GET /count and /reset: {"id":"NAME","served":N,"delay":MS}.
  void append_count(std::string& out, std::uint64_t served, Framing framing) const;
  // A short text answer: `status` with `message` and a newline as the body (refusals of bad
  // input, bad query overrides).
  void append_text(std::string& out, int status, std::string_view message, Framing framing) const;
  // GET /metrics: `text` as Prometheus text format 0.0.4.
  void append_exposition(std::string& out, std::string_view text, Framing framing) const;
  static void append_continue(std::string& out);

  int error_status() const { return error_status_; }

  // The parts of an answer, for HTTP/2 (which frames them itself). The views live as long as
  // this object; date() changes once a second.
  std::string_view date() const { return view(date_); }
  std::string_view id() const { return id_; }
  // The body and content type of a served request's answer: `status` < 400: the configured
  // body, else "ERROR"; none for 204 and 304 (has_body()). With `filler`, the caller sends that
  // many filler bytes ('x') as text/plain instead.
  std::string_view body_for(int status) const;
  std::string_view content_type_for(int status, bool filler) const;
  static bool has_body(int status);
  // The JSON of /count and /reset, into `buffer`; returns the view of it.
  std::string_view count_json(char (&buffer)[256], std::uint64_t served) const;

 private:
  struct Prebuilt {
    std::string bytes;
    std::size_t head_length = 0;
    std::size_t date_offset = 0;
  };
  Prebuilt build(int status, std::string_view content_type, std::string_view body,
                 http::Persistence persistence) const;
  void append_head(std::string& out, int status, std::string_view content_type,
                   std::uint64_t length, http::Persistence persistence) const;

  std::string id_;
  std::string body_;
  std::string content_type_;
  std::string id_json_;     // "\"NAME\"" or null
  std::string delay_json_;  // the configured delay in ms, as a JSON number
  int error_status_;
  HttpDate date_;
  static constexpr int kPersistences = 3;
  Prebuilt canned_[2][kPersistences];  // [Canned][Persistence]
};

}  // namespace stampede::server
