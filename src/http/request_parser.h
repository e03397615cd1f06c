// RequestParser: server-side HTTP/1.1 request parsing over llhttp, bytes in, events out.
#pragma once

#include <llhttp.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "http/chunked_checker.h"
#include "http/head_checker.h"
#include "http/header.h"
#include "http/llhttp_driver.h"
#include "http/parse_types.h"

namespace stampede::http {

// Parses the requests of one connection, in order (pipelining: after MessageComplete the next
// request starts in the remaining bytes). Pull-style: feed() stops at the end of each head and
// each message, so a proxy learns the byte offsets of both and can forward the body raw,
// chunk framing included. Strict: malformed heads, bare LF, bare CR, obs-fold, Content-Length
// together with Transfer-Encoding, duplicate Content-Length, an HTTP/1.1 request without
// exactly one Host (any request with two), a Host that is not uri-host [":" port], a target
// with a byte outside visible ASCII, and chunk framing other than RFC 9112 7.1's (see
// ChunkedChecker) are 400s; ParserLimits give 413/414/431 (trailers and chunk extensions count
// against max_header_bytes); a well-formed HTTP version other than 1.0/1.1 is 505.
// After a request that does not keep the connection alive (keep_alive() false), further
// bytes are an Error: stop reading then. After an upgrade() request the caller either switches
// protocols or keeps feeding, which continues with HTTP (the upgrade was declined).
// The method, target and headers are copied into a buffer reused from request to request, so
// they survive being split across feed() calls. One thread; movable, not copyable.
class RequestParser {
 public:
  RequestParser() : RequestParser(ParserLimits{}) {}
  explicit RequestParser(ParserLimits limits);
  RequestParser(RequestParser&&) noexcept = default;
  RequestParser& operator=(RequestParser&&) noexcept = default;
  RequestParser(const RequestParser&) = delete;
  RequestParser& operator=(const RequestParser&) = delete;

  // Parses bytes of the stream. `data` needs to stay valid only during the call.
  Step feed(const char* data, std::size_t len);
  Step feed(std::string_view bytes) { return feed(bytes.data(), bytes.size()); }
  // The peer closed its side: NeedMore when no request was in progress, Error (400) when one
  // was cut short.
  Step finish();
  // Back to the start of a new connection (same limits).
  void reset();

  // About the current request: valid from HeadComplete until the next request begins.
  std::string_view method() const { return method_; }  // "GET", "POST", ...
  std::string_view target() const { return std::string_view(buf_).substr(0, target_len_); }
  std::string_view path() const;   // target before '?'
  std::string_view query() const;  // target after '?' (without it); empty if none
  int http_minor() const { return http_minor_; }
  bool keep_alive() const { return keep_alive_; }            // version + Connection header
  bool expect_continue() const { return expect_continue_; }  // "Expect: 100-continue"
  bool upgrade() const { return upgrade_; }  // Upgrade + Connection: upgrade, or CONNECT
  bool chunked() const { return chunked_; }
  std::optional<std::uint64_t> content_length() const;
  // All header fields in order, names as sent, values without surrounding whitespace.
  std::span<const Header> headers() const { return headers_; }
  // The first value of header `name` (case-insensitive).
  std::optional<std::string_view> header(std::string_view name) const;

  // Why the last Error happened. Errors are final until reset().
  const ParseError& error() const { return driver_.error(); }
  const ParserLimits& limits() const { return limits_; }

 private:
  struct Callbacks;
  friend struct LlhttpCallbacks<RequestParser>;
  // One header field as offsets into buf_ (which may move while the head grows).
  struct Field {
    std::size_t name_offset;
    std::size_t name_len;
    std::size_t value_offset;
    std::size_t value_len;
  };

  void start_message();
  int finish_head(llhttp_t* p);
  Step execute(const char* data, std::size_t len);
  Step check_head(const char* data, std::size_t head_bytes, Step step);
  std::optional<ParseError> check_before_error(const char* data, std::size_t consumed);
  // A request ended (MessageComplete): the state for the next one, or closed.
  void end_message();

  ParserLimits limits_;
  LlhttpDriver driver_;
  HeadChecker checker_{HeadKind::Request};
  ChunkedChecker chunks_;

  std::string buf_;  // target, then each header name and value
  std::vector<Field> fields_;
  std::vector<Header> headers_;  // views into buf_, built when the head completes
  std::string_view method_;      // static string from llhttp
  std::size_t target_len_ = 0;
  std::size_t head_bytes_ = 0;    // bytes of the current head seen so far
  std::uint64_t body_bytes_ = 0;  // sum of chunk sizes so far
  std::uint64_t content_length_ = 0;
  int host_fields_ = 0;         // Host fields in the current head
  std::size_t host_field_ = 0;  // index in fields_ of the last Host field
  std::string valid_host_;      // the last Host value found valid (it stays valid)

  bool closed_ = false;  // a request without keep-alive completed
  bool in_head_ = true;  // still before HeadComplete: bytes fed are head bytes
  bool in_field_ = false;
  bool keep_alive_ = false;
  bool expect_continue_ = false;
  bool upgrade_ = false;
  bool chunked_ = false;
  bool has_content_length_ = false;
  int http_minor_ = 0;
};

}  // namespace stampede::http
