// ProxySession: one client connection and, while a request is being served, the backend
// connection it is lent. Requests are served one at a time, in order (pipelined requests wait
// in the client buffer). Bodies stream raw in both directions, chunk framing included: the
// parsers only say where heads and messages end. Heads are rewritten (head_rewrite.h).
//
// I/O: the client connection and the backend one are net::Streams (net/stream.h); the session
// never touches a descriptor except to register it with the loop.
//
// Lifetime: owned by its Worker; runs on the worker's thread only. It closes itself through
// Worker::close_session() (deferred destruction: the client stream is closed with the object);
// it never outlives the worker's loop.
//
// Retries (see docs/balance.md) follow attempt_rules.h, the rules H2Stream follows too.
//
// Failures: a response that fails (parse error, cut short, stalled) before any of its bytes
// were written to the client is withdrawn and replaced by a 502 (504); after that the client
// connection is closed. A client that goes away mid-request cancels the attempt (a client
// abort, not a backend failure). Requests go upstream as HTTP/1.1 whatever the client's
// version; a chunked response to an HTTP/1.0 client is relayed de-chunked, close-delimited.
//
// A request with Upgrade (websocket) keeps its Upgrade header; if the backend answers 101 the
// session becomes a tunnel that copies bytes both ways until either side closes.
//
// HTTP/2: a connection whose first bytes are the client preface (h2/preface.h; h2c with prior
// knowledge) is handed to an H2Session (h2_session.h), which balances each of its streams; the
// ProxySession then only forwards the client's events and the sweep's ticks to it.
//
// TLS listener (--tls-cert): the session starts in the Handshake phase, advanced on each
// readiness event (never blocking the worker) until done, within --client-timeout of the
// accept; a failure or the deadline closes it, counted by the worker (HandshakeEnd), never
// against a backend. Then ALPN decides: "h2" goes to an H2Session at once, anything else to the
// HTTP/1.1 path; the preface is not sniffed over TLS (RFC 9113 3.3).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "balancer/attempt.h"
#include "balancer/attempt_steps.h"
#include "balancer/buffer.h"
#include "balancer/upstream.h"
#include "http/request_parser.h"
#include "http/response_parser.h"
#include "net/event_loop.h"
#include "net/stream.h"

namespace stampede::tls {
class Stream;
}

namespace stampede::balancer {

class Backend;
class H2Session;
class Worker;

class ProxySession final : public net::IoHandler,
                           public UpstreamOwner,
                           private AttemptSteps<ProxySession> {
 public:
  // `admin_only`: a connection to --admin-listen, where every request is answered locally.
  // `secure`: `client` itself when it is a connection to the TLS listener (for its handshake and
  // ALPN), else null.
  ProxySession(Worker& worker, std::unique_ptr<net::Stream> client, bool admin_only,
               const tls::Stream* secure);
  ~ProxySession();
  ProxySession(const ProxySession&) = delete;
  ProxySession& operator=(const ProxySession&) = delete;

  // Registers the client stream with the loop (its first edge reports what is already there).
  Expected<void> start();
  void on_events(std::uint32_t events) override;           // client socket
  void on_upstream_events(std::uint32_t events) override;  // the lent backend connection
  // Called by the worker's sweep: acts on an expired deadline (idle, header, connect, backend).
  void on_tick(std::int64_t now_ns);

  // Closes the client connection (H2Session's way out).
  void close_connection() { close(); }

  std::size_t slot() const { return slot_; }
  void set_slot(std::size_t slot) { slot_ = slot; }
  bool closed() const { return phase_ == Phase::Closed; }

 private:
  friend class AttemptSteps<ProxySession>;
  enum class Phase : std::uint8_t { Handshake, Head, Forward, Tunnel, H2, Closed };

  // Client side (proxy_session.cc).
  void drive_client();
  void read_client();
  bool want_client_input() const;
  void process_client_input();
  bool feed_head();
  void feed_body();
  void begin_request();
  bool is_admin_request() const;
  void on_client_eof();
  void flush_client();
  void reply_local(int status, std::string_view error, std::string_view backend_name);
  void reply_admin();
  void finish_exchange();
  void close();
  void touch();
  // The connection's first bytes against the HTTP/2 preface: false while they say nothing yet
  // or once the connection went to HTTP/2.
  bool sniff();
  void enter_h2(std::string_view input);
  // TLS listener: the handshake's next step, and its end (ALPN, or a failure counted).
  void advance_handshake();
  void fail_handshake(int error);

  // Backend side (proxy_upstream.cc): the hooks of AttemptSteps (attempt_steps.h).
  void dispatch();
  void reset_attempt();
  // The lent connection's events (AttemptSteps' name for on_upstream_events).
  void handle_upstream_events(std::uint32_t events) { on_upstream_events(events); }
  void flush_upstream();
  void read_upstream();
  bool on_response_head(std::size_t head_len);
  // Body bytes go out raw (chunk framing included), unless the parser's body callback takes
  // them de-chunked.
  void relay_raw_body(std::size_t n) {
    if (!relay_.dechunk) client_out_.append(upstream_in_.data(), n);
  }
  void response_complete(bool reusable);
  void response_failed(Cause failure);
  void release_upstream(bool reusable);

  // Tunnel after a 101 to an Upgrade request (proxy_tunnel.cc): bytes both ways, unparsed.
  bool enter_tunnel(std::size_t head_len);
  void tunnel_step();

  // The request being served: reset by one assignment when its head completes and when its
  // exchange ends (nothing of it outlives its response).
  struct RequestState {
    bool local = false;       // answered by the balancer itself (admin endpoints)
    bool done = false;        // its last byte was parsed (and queued upstream)
    bool keep_alive = false;  // the client keeps the connection after the response
    bool is_head = false;
    bool http10 = false;
    bool upgrade = false;     // Upgrade asked for: a 101 opens a tunnel
    bool dispatched = false;  // an attempt was started
    RetryState retry;         // what its failed attempts may still do (attempt_rules.h)
  };
  // What the current attempt relays to an HTTP/1.x client, beside its Attempt: reset with it.
  struct RelayState {
    std::uint64_t response_at = 0;  // client stream offset where the relayed response starts
    bool dechunk = false;           // HTTP/1.0 client, chunked response: relay the body plain
  };

  Worker& worker_;
  std::unique_ptr<net::Stream> client_;
  const tls::Stream* secure_ = nullptr;  // client_, over the TLS listener
  std::string client_ip_;
  std::string_view proto_;  // X-Forwarded-Proto: "http", or "https" over the TLS listener
  std::size_t slot_ = 0;
  Phase phase_ = Phase::Head;
  bool admin_only_ = false;

  http::RequestParser request_;
  Buffer client_in_;
  Buffer client_out_;
  std::uint64_t client_written_ = 0;    // bytes written to the client socket, ever
  bool client_readable_ = false;        // edge seen, socket not drained yet
  bool client_closed_ = false;          // the client's FIN or reset was reported: read to EOF
  bool client_read_wants_out_ = false;  // a read waits for the stream to send (TLS WANT_WRITE)
  bool client_eof_ = false;
  bool close_after_flush_ = false;
  bool head_started_ = false;
  bool sniffed_ = false;  // the first bytes were not the HTTP/2 preface
  bool driving_ = false;  // drive_client() is on the stack: a nested call asks for a rerun
  bool redrive_ = false;
  std::int64_t deadline_ns_ = 0;
  std::int64_t head_deadline_ns_ = 0;

  RequestState req_;
  std::string session_key_;
  std::vector<Backend*> tried_;

  Attempt attempt_;
  RelayState relay_;
  std::unique_ptr<UpstreamConn> upstream_;
  http::ResponseParser response_;
  Buffer upstream_in_;
  Buffer upstream_out_;

  std::unique_ptr<H2Session> h2_;  // after the HTTP/2 preface
};

}  // namespace stampede::balancer
