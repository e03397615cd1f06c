// ResponseParser: client-side HTTP/1.1 response parsing over llhttp, bytes in, events out.
#pragma once

#include <llhttp.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/chunked_checker.h"
#include "http/head_checker.h"
#include "http/llhttp_driver.h"
#include "http/parse_types.h"

namespace stampede::http {

// Counts the codings named "chunked" (any case) in Transfer-Encoding values given in pieces:
// comma-separated, OWS around each. Internal to ResponseParser.
struct ChunkedCodings {
  void feed(std::string_view value);
  void end_coding();  // at a value's end

  std::uint8_t chunked = 0;  // saturates
  std::uint8_t length = 0;   // bytes of the current coding so far, up to 7
  bool other = false;        // the current coding is not "chunked"
  bool ended = false;        // OWS after the current coding
};

// Parses the responses of one connection, in order. Pull-style: feed() stops at the end of a
// head and at the end of a message (see Step). Strict llhttp (no lenient flags), and stricter
// than llhttp 8.1 (each an Error with status 502, what a proxy answers):
//  - a head (with any 1xx heads before it) over kMaxHeadBytes, a bare LF or bare CR in it,
//    obs-fold, an empty header name, a status code other than three digits 100-599, an HTTP
//    version other than 1.0/1.1 (see HeadChecker), a control byte in the reason phrase;
//  - chunk framing other than RFC 9112 7.1's, chunk extensions or head plus trailers over
//    kMaxHeadBytes (see ChunkedChecker);
//  - chunked named more than once in Transfer-Encoding (one field or several; RFC 9112 6.1),
//    which llhttp 8.1 would de-chunk once.
//  - 1xx interim responses (a head, never a body) are skipped silently, except 101 Switching
//    Protocols, which is reported; after it the connection belongs to another protocol (feed()
//    then fails). The end of the stream after a 1xx cuts the final response short.
//  - Content-Length, chunked and close-delimited bodies; the last completes in finish().
//    Responses to HEAD (see expect_no_body()), 204 and 304 have no body whatever they say.
//  - After a response that ends the connection (keep_alive() false), more bytes are an Error.
//  - Body bytes are not copied; a body callback can be set to see them (de-chunked).
//  - Header values are only looked at for Transfer-Encoding and the names given to the
//    constructor; with none, the per-header work beyond llhttp's own scan is one callback.
//  - A repeated response costs one comparison: the parser keeps the bytes of the last response
//    it parsed whole that left it where it began (a final keep-alive response with a
//    Content-Length body, neither chunked nor for HEAD, its head in one feed; no captures, no
//    body callback; at most kMaxRepeatBytes), and when the next response starts with exactly
//    those bytes, it reports that response's events again without running llhttp and the checks:
//    parsing is a function of the bytes and the state at a message's start, which is the same
//    then, so the verdict is the one those bytes already got (see repeat_step()). Where the
//    responses differ (a pool whose members name themselves, a body that varies), the
//    comparison fails at the first differing byte; after kMissesToBackOff failures in a row the
//    parser records only one response in kRecordOneIn, until a comparison succeeds again.
// No allocation per response in steady state. One thread; movable, not copyable.
class ResponseParser {
 public:
  // The limit of a response head, and of head plus trailers (the balancer's too).
  static constexpr std::size_t kMaxHeadBytes = 64 * 1024;
  // The longest response kept for comparison with the next one.
  static constexpr std::size_t kMaxRepeatBytes = 2048;
  // Failed comparisons in a row after which recording backs off to one response in
  // kRecordOneIn (each copy costs about as much as the comparison saves when it succeeds).
  static constexpr std::uint8_t kMissesToBackOff = 2;
  static constexpr std::uint8_t kRecordOneIn = 64;

  using BodyCallback = std::function<void(std::string_view chunk)>;

  ResponseParser() : ResponseParser(std::vector<std::string>{}) {}
  // `capture_headers`: names (any case) whose values header()/captured() return.
  explicit ResponseParser(std::vector<std::string> capture_headers);
  ResponseParser(ResponseParser&&) noexcept = default;
  ResponseParser& operator=(ResponseParser&&) noexcept = default;
  ResponseParser(const ResponseParser&) = delete;
  ResponseParser& operator=(const ResponseParser&) = delete;

  // Parses bytes of the stream. `data` needs to stay valid only during the call.
  Step feed(const char* data, std::size_t len);
  Step feed(std::string_view bytes) { return feed(bytes.data(), bytes.size()); }
  // The peer closed the connection: MessageComplete when that ends a close-delimited body,
  // NeedMore when no response was in progress, Error when a response was cut short.
  Step finish();
  // Back to the start of a new connection; keeps the capture list, the body callback and the
  // response to repeat (a connection starts in the state a keep-alive response leaves).
  void reset();

  // The next response answers a HEAD request: it has no body whatever its headers say.
  // Call before that response's head completes; it applies to one (final) response.
  void expect_no_body() { no_body_next_ = true; }
  // Receives the body bytes (de-chunked) as they are parsed; an empty function turns it off.
  void set_body_callback(BodyCallback callback);

  // About the current response: valid from HeadComplete until the next response begins.
  int status() const { return status_; }
  int http_minor() const { return http_minor_; }
  // Whether the connection can carry another response after this one (Connection header,
  // version, and framing: a close-delimited body ends the connection). Final after
  // MessageComplete.
  bool keep_alive() const { return keep_alive_; }
  bool upgrade() const { return status_ == 101; }
  bool chunked() const { return chunked_; }
  std::optional<std::uint64_t> content_length() const;

  // The value of the index-th capture name (several occurrences joined with ", "), or nullopt
  // when the response did not have it.
  std::optional<std::string_view> captured(std::size_t index) const;
  // The same, by name (case-insensitive; only captured names are found).
  std::optional<std::string_view> header(std::string_view name) const;

  // Why the last Error happened. Errors are final until reset().
  const ParseError& error() const { return driver_.error(); }

  // Responses reported by the repeat (without running llhttp) since construction.
  std::uint64_t repeated() const { return repeated_; }

 private:
  struct Callbacks;
  friend struct LlhttpCallbacks<ResponseParser>;

  // A response ended (MessageComplete): the state for the next one, or closed.
  void end_message();
  Step check_head(const char* data, Step step);
  void start_message();
  int capture_index(std::string_view name) const;
  // Routes header values to the coding counter (`on`) or back to capture (or nowhere).
  void read_codings(bool on);
  // The repeat of the last response: its head's HeadComplete (from a message's start), or its
  // body's MessageComplete (after that head); nullopt when the bytes differ.
  std::optional<Step> repeat_step(const char* data, std::size_t len);
  // Keeps the bytes of the response being parsed while it may become the one repeated.
  void record(const char* data, Step step, bool body);
  bool backed_off();

  LlhttpDriver driver_;
  HeadChecker checker_{HeadKind::Response};
  ChunkedChecker chunks_;
  BodyCallback body_callback_;
  std::size_t head_bytes_ = 0;  // bytes of the current head (and 1xx heads before it) so far

  bool closed_ = false;  // a non-keep-alive or 101 response completed: no more responses
  bool no_body_next_ = false;
  bool interim_ = false;        // parsing a 1xx (not 101) response, which is not reported
  bool after_interim_ = false;  // a 1xx completed, its final response has not begun its head
  bool keep_alive_ = false;
  bool chunked_ = false;
  bool chunked_body_ = false;  // chunked_ and the response has a body
  bool head_done_ = false;     // HeadComplete reported: bytes fed are body bytes
  bool has_content_length_ = false;
  int status_ = 0;
  int http_minor_ = 0;
  std::uint64_t content_length_ = 0;
  ChunkedCodings codings_;  // of the current head's Transfer-Encoding fields

  // The response to repeat (see the class comment): its bytes, head first, and what it set.
  struct Fields {
    int status = 0;
    int http_minor = 0;
    std::uint64_t content_length = 0;
  };
  std::string repeat_;
  Fields repeat_fields_;
  std::size_t repeat_head_ = 0;  // 0: none
  std::string recording_;        // the response being parsed, while it qualifies
  std::size_t recording_head_ = 0;
  bool recording_ok_ = false;
  bool repeating_ = false;       // the repeat's HeadComplete was reported; its body is next
  std::uint8_t misses_ = 0;      // comparisons failed in a row (saturates; kept by reset())
  std::uint8_t unrecorded_ = 0;  // responses passed over since the last one recorded
  std::uint64_t repeated_ = 0;

  // Header capture (unused, and its callbacks not installed, when capture_names_ is empty).
  std::vector<std::string> capture_names_;
  std::vector<std::string> capture_values_;
  std::vector<bool> capture_present_;
  std::string field_;         // the header name being parsed (bounded by the longest name)
  std::size_t max_name_ = 0;  // longest capture name
  std::size_t value_start_ = 0;
  std::size_t captured_bytes_ = 0;
  int current_capture_ = -1;  // index of the capture the current value belongs to, or -1
  bool in_field_ = false;
  bool in_head_ = true;  // false once the head is done: trailers are not captured
};

}  // namespace stampede::http
