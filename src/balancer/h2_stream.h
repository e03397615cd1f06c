// H2Stream: one request stream of a client's HTTP/2 connection (H2Session) and, while it is
// being answered, the HTTP/1.1 backend connection it is lent, exactly as a ProxySession is lent
// one per request: every stream picks its backend by the worker's Policy, goes over a pooled
// keep-alive connection (or a new one), and counts in that backend's stats. The answer goes back
// on the stream with x-backend (h2_heads.h for the head translations).
//
// Request bodies (DATA) are forwarded as they come (chunked when the request has no
// content-length); the session consumes the stream's flow-control window only once the
// backend has taken the bytes, so a stream holds at most its window (kStreamWindow) of body.
// Response bodies are de-chunked into a buffer that the session's data provider hands to
// nghttp2 as the client's window allows; reading from the backend stops while kStreamBuffer
// bytes wait, so a client that never opens its window holds no more than that per stream.
//
// Retries and failures follow the rules ProxySession follows too (attempt_rules.h). A failure
// before the response head was submitted answers the stream 502 (504 for a timeout, 503 when
// the balancer's own resources ran out); after it, the stream is reset with INTERNAL_ERROR. The
// other streams of the connection go on. A stream the client resets (or that closes otherwise)
// cancels its attempt (a client abort) and its backend connection is closed, never pooled
// mid-response.
//
// Lifetime: owned by its H2Session, on the worker's thread. Inside nghttp2's callbacks a stream
// only buffers; the session calls service() after each batch of input, and the stream's own
// upstream events run through H2Session::upstream_entry(), so a stream never closes itself
// while one of its methods is on the stack.
#pragma once

#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "balancer/attempt.h"
#include "balancer/attempt_steps.h"
#include "balancer/buffer.h"
#include "balancer/h2_heads.h"
#include "balancer/upstream.h"
#include "http/response_parser.h"

namespace stampede::balancer {

class Backend;
class H2Session;
class Worker;

// The stream window we announce (SETTINGS_INITIAL_WINDOW_SIZE): request body bytes a stream
// may have in the balancer before the backend took them.
inline constexpr std::int32_t kStreamWindow = 128 * 1024;
// Response body bytes a stream keeps for a client whose window is closed.
inline constexpr std::size_t kStreamBuffer = 64 * 1024;

class H2Stream final : public UpstreamOwner, private AttemptSteps<H2Stream> {
 public:
  H2Stream(H2Session& session, Worker& worker, std::int32_t id);
  ~H2Stream();
  H2Stream(const H2Stream&) = delete;
  H2Stream& operator=(const H2Stream&) = delete;

  std::int32_t id() const { return id_; }
  H2RequestFields& fields() { return fields_; }
  // Adds a header field's size (RFC 9113 6.5.2); false once the list is over `limit`.
  bool count_header(std::size_t bytes, std::size_t limit) {
    header_bytes_ += bytes;
    return header_bytes_ <= limit;
  }

  // From the session's callbacks (buffering only).
  void on_request_head(bool ends_stream);
  void on_body(const std::uint8_t* data, std::size_t length);
  void on_request_end();
  // The stream is closed (answered, or reset by either side): any attempt is cancelled.
  void on_closed();

  // After a batch of input: dispatch a request whose head arrived, forward body bytes.
  void service();
  // The client took response bytes after reading had stopped on a full buffer: read on.
  void pump();
  void on_tick(std::int64_t now_ns);
  void on_upstream_events(std::uint32_t events) override;  // via the session
  void handle_upstream_events(std::uint32_t events);

  // A header field for nghttp2 (views: they must outlive the submit, which copies them).
  static nghttp2_nv field(std::string_view name, std::string_view value) {
    return {reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
            reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(),
            value.size(), NGHTTP2_NV_FLAG_NONE};
  }

  // nghttp2's data provider for the response body.
  static ssize_t read_body(nghttp2_session*, std::int32_t, std::uint8_t* buffer, std::size_t length,
                           std::uint32_t* flags, nghttp2_data_source* source, void*);

 private:
  friend class AttemptSteps<H2Stream>;
  void dispatch();
  bool is_admin_request() const;
  void reply_admin();
  void reply_local(int status, std::string_view error, std::string_view backend);
  void submit(int status, std::span<const nghttp2_nv> fields, bool body);
  void reset(std::uint32_t error_code);
  void body_grew();
  void touch();

  // Backend side (h2_upstream.cc): the hooks of AttemptSteps (attempt_steps.h).
  void reset_attempt() { attempt_ = Attempt{}; }
  void flush_upstream();
  void read_upstream();
  bool on_response_head(std::size_t head_len);
  // Body bytes reach body_ de-chunked, through the parser's body callback: none go raw.
  void relay_raw_body(std::size_t) {}
  void response_complete(bool reusable);
  void response_failed(Cause failure);
  void release_upstream(bool reusable);

  struct RequestState {
    bool head_done = false;  // the request head arrived (HEADERS with END_HEADERS)
    bool done = false;       // END_STREAM arrived
    bool is_head = false;
    bool chunked = false;     // a body without content-length: sent chunked upstream
    bool end_queued = false;  // the last chunk (or the whole body) is in upstream_out_
    bool dispatched = false;
    bool answered = false;  // response HEADERS submitted
    bool closed = false;    // nghttp2 closed the stream
    RetryState retry;       // what its failed attempts may still do (attempt_rules.h)
  };

  H2Session& session_;
  Worker& worker_;
  std::int32_t id_;
  H2RequestFields fields_;
  std::size_t header_bytes_ = 0;
  RequestState req_;
  Attempt attempt_;
  std::vector<Backend*> tried_;
  std::unique_ptr<UpstreamConn> upstream_;
  http::ResponseParser response_;
  Buffer upstream_in_;
  Buffer upstream_out_;
  std::size_t window_owed_ = 0;  // body bytes received but not yet given back to the client
  Buffer body_;                  // response body for the client
  bool body_done_ = false;       // the response is complete: EOF after body_
  bool deferred_ = false;        // the data provider said DEFERRED: resume when body_ grows
  bool paused_ = false;          // reading from the backend stopped on a full body_
  std::int64_t deadline_ns_ = 0;
};

}  // namespace stampede::balancer
