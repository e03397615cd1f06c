// H2Client: one client of an --http2 run, one HTTP/2 connection at a time (h2c with prior
// knowledge for http://, TLS with ALPN "h2" for https://), carrying up to
// ConnectionContext::streams requests at once as concurrent streams.
//
//   Idle -> Connecting -> Open (streams come and go) -> [server's GOAWAY: Open until the streams
//   it still answers are done] -> Idle (reconnect, after a backoff when the socket never carried a
//   response) ... -> Finished
// A connection that opened its last stream id (2^31 - 1) takes no more streams; once they are
// done it sends GOAWAY (NO_ERROR) and closes, and the next permits go on a new connection: no
// request fails for it.
//
// Each permit from the worker is one stream. A new socket carries one stream until the server's
// first SETTINGS arrived (so a server that does not speak HTTP/2 costs one failure per
// connection, and MAX_CONCURRENT_STREAMS is known before more streams open); then as many as
// min(streams, the server's MAX_CONCURRENT_STREAMS). Each stream ends in exactly one record in
// WorkerStats: its response by status (latency from its submit, or with --rps from its intended
// time, to the end of the stream), or one failure:
//   "RST_STREAM <NAME>"   the server reset the stream with that error code (h2/error_codes.h);
//   "GOAWAY unprocessed"  the server's GOAWAY left the stream above its last stream id (never
//                         processed: not retried, the next permits go on a new connection);
//   "not HTTP/2"          the server's first bytes are not a SETTINGS frame;
//   "no h2 in ALPN"       https: the server's TLS handshake did not select "h2" (the only
//                         protocol offered), once per connection;
//   "headers too large"   the response's header block passed kMaxHeaderBytes (the stream is
//                         reset with CANCEL);
//   EPROTO                the server broke the protocol (the session ends with our GOAWAY);
//   ETIMEDOUT, ECONNRESET and the other errnos of the socket, as an HTTP/1.1 Connection counts
//   them (each stream in flight on the lost socket counts once).
// With hooks (ConnectionContext::hook_set; h2_client_hooks.cc) each stream keeps the meaning
// an HTTP/1.1 request has: a generated request (RequestHook::generate's HTTP/1.1 bytes) is made
// into HTTP/2 fields by H2Generated when its permit is taken; one that cannot be (or that the
// hook failed to make) takes no stream, counts once under its error and pauses the client's
// taking of permits as a Connection backs off (10 ms, doubling, reset by the next request made).
// Every stream's end calls on_outcome once (with its status, latencies, the captured headers
// and body, or its failure's name), and a response's verdict counts it under that code.
//
// nghttp2 (1.52) frames and parses through nghttp2_session_mem_recv / mem_send; the read and
// write of the net::Stream its net::Connector yields are the only I/O calls.
//
// Thread: the worker's, only. Owned by the Connection it stands in for (its owner holds and
// releases permits through that Connection); registered with the loop for its own socket.
#pragma once

#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "loadgen/connection.h"
#include "loadgen/h2_generated.h"
#include "loadgen/h2_request.h"
#include "net/connector.h"
#include "net/event_loop.h"

namespace stampede::loadgen {

// The largest response header block (names and values) a stream may carry.
inline constexpr std::size_t kMaxHeaderBytes = 64 * 1024;

class H2Client final : public net::IoHandler {
 public:
  // `connection`: the one the owner is told about in hold(). A null connector: make_connector.
  H2Client(const ConnectionContext& context, Connection& connection,
           std::unique_ptr<net::Connector> connector);
  ~H2Client();
  H2Client(const H2Client&) = delete;
  H2Client& operator=(const H2Client&) = delete;

  void start();
  // As Connection::stop_sending: finish once the streams in flight are done.
  void stop_sending();
  bool finished() const { return state_ == State::Finished; }
  // The permit given to ConnectionOwner::hold is due: submit it.
  void send_pending();

  void on_events(std::uint32_t events) override;

  // nghttp2's callbacks (h2_client.cc), public only for their trampolines.
  struct Slot;
  void on_frame(const nghttp2_frame& frame);
  void on_begin_headers(std::int32_t stream_id);
  // 0, or NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE to reset the stream (its headers are too large).
  int on_header(std::int32_t stream_id, std::string_view name, std::string_view value);
  void on_stream_close(std::int32_t stream_id, std::uint32_t code);
  // A chunk of a response body (installed only when HookSet::capture_body).
  void on_data(std::int32_t stream_id, std::string_view chunk);
  long read_body(std::int32_t stream_id, std::uint8_t* buffer, std::size_t length,
                 std::uint32_t* flags);

 private:
  enum class State : std::uint8_t { Idle, Waiting, Connecting, Securing, Open, Finished };

  void fill(bool after_busy);
  // The socket can carry one more stream now (or a new socket can be opened).
  bool has_room() const;
  bool can_take() const { return !held_.held && !no_more_ && !generate_paused_ && has_room(); }
  void take(const SendPermit& permit);
  void open_socket();
  void on_connected();
  // https: advances the TLS handshake; once done, ALPN must have selected h2.
  void secure();
  void start_session();
  void submit(Slot& slot);
  void read_frames(std::uint32_t events);
  // Feeds bytes to the session; false when the connection ended.
  bool feed(const char* data, std::size_t length);
  bool flush();
  void arm_deadline();
  void on_deadline();
  // Records the slot's outcome and frees it.
  void complete(Slot& slot);
  void record_failure(Slot& slot, std::string_view name, int err);
  // --log: the stream's line: its response's status, or 0 and its failure (`name`, or `err`).
  void log_stream(const Slot& slot, std::int64_t end_ns, int status, std::string_view name,
                  int err);
  // The socket is done: every stream still in flight fails under `name` / `err`, then reconnect.
  void lose_connection(std::string_view name, int err);
  // Returns whether the socket delivered a response.
  bool close_socket();
  void after_close(bool responded);
  void release(Slot& slot);
  // Writes what is queued, then reads on; false when the connection ended meanwhile.
  bool pump();
  void finish();
  Slot* slot_of(std::int32_t stream_id);
  // h2_client_hooks.cc, with hooks only. The request of `permit` from the hook into `out`;
  // false when it is not sent (counted, and the client pauses).
  bool generate(const SendPermit& permit, H2Fields& out);
  // RequestOutcome for the slot's end: its status (0: failed under `failure` or `err`) and the
  // latencies just recorded. Returns the hook's verdict (valid until its next call).
  std::string_view notify_hook(Slot& slot, int status, int err, std::string_view failure,
                               std::int64_t latency_ns, std::int64_t uncorrected_ns);

  const ConnectionContext& context_;
  Connection& connection_;
  std::unique_ptr<net::Connector> connector_;
  net::Stream* stream_ = nullptr;
  nghttp2_session_callbacks* callbacks_ = nullptr;
  nghttp2_session* session_ = nullptr;
  net::Timer backoff_timer_;
  net::Timer deadline_timer_;
  net::Timer generate_timer_;  // the pause after a request not made
  State state_ = State::Idle;

  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_;  // indexes of free slots
  std::uint32_t in_flight_ = 0;
  std::uint32_t limit_ = 1;  // streams this socket may carry now
  H2Rendered rendered_;
  std::string out_;  // bytes from nghttp2 not yet written
  std::size_t out_pos_ = 0;
  std::string name_;  // a failure's name being built
  HeldPermit held_;   // a permit waiting for its time (held by the owner)
  bool no_more_ = false;
  bool settings_seen_ = false;  // the server's first SETTINGS arrived on this socket
  bool goaway_ = false;  // a GOAWAY came (or we sent one): no new streams; the last id it covers
  std::int32_t goaway_last_id_ = 0;
  bool ids_used_up_ = false;  // the last stream id is open: GOAWAY once the streams are done
  bool responded_ = false;    // this socket delivered a response
  bool readable_ = false;     // bytes arrived during the connect
  std::int64_t socket_begin_ns_ = 0;  // the connect started
  std::int64_t connected_ns_ = 0;     // ...and completed (0: not yet), for --log
  std::uint64_t socket_id_ = 0;       // --log: the socket's id (WorkerLog::next_connection)
  std::size_t head_seen_ = 0;         // bytes of the server's first frame header checked so far
  std::uint32_t failures_ = 0;        // consecutive sockets without a response, for the backoff

  // With a hook that generates: the translation, the hook's bytes, and the pause after failures.
  std::unique_ptr<H2Generated> generated_;
  std::string generated_bytes_;
  std::uint32_t generate_failures_ = 0;  // consecutive requests not made
  bool generate_paused_ = false;
};

}  // namespace stampede::loadgen
