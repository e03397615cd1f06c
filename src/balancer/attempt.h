// One attempt at a backend: its state and the steps ProxySession (an HTTP/1.1 client) and
// H2Stream (an HTTP/2 stream) share to start it, lend it a connection, write the request,
// count its end and give the connection back. What follows a failure is decided by
// attempt_rules.h; the owner applies it (retry, resend, reply), since only it can answer.
//
// Every function runs on the worker's thread, with the owner's own Attempt and connection
// slot; none of them calls back into the owner.
#pragma once

#include <sys/epoll.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "balancer/attempt_rules.h"
#include "balancer/backend.h"
#include "balancer/buffer.h"
#include "balancer/session_limits.h"
#include "balancer/upstream.h"
#include "balancer/worker.h"
#include "http/response_parser.h"
#include "net/stream.h"

namespace stampede::balancer {

// The current attempt: reset by one assignment when it starts (begin_attempt).
struct Attempt {
  Backend* backend = nullptr;
  std::int64_t start_ns = 0;
  std::size_t sent = 0;            // bytes of the request buffer written in this attempt
  std::size_t head_parsed = 0;     // response bytes fed while the head is incomplete
  bool active = false;             // the backend counts this request in flight
  bool reused = false;             // on a pooled connection that carried requests before
  bool wrote = false;              // a byte of this attempt was accepted by the kernel
  bool resp_started = false;       // a byte of the response arrived
  bool resp_head_done = false;     // the response head went to the client
  bool upstream_readable = false;  // edge seen, socket not drained yet
  bool upstream_closed = false;    // the backend's FIN or reset was reported: read to EOF
  bool read_wants_out = false;     // a read waits for the stream to send (TLS WANT_WRITE)

  AttemptProgress progress() const { return {reused, wrote, resp_started}; }
};

// Counts a new attempt at `backend` in flight (backend and policy); `attempt` must be fresh.
void begin_attempt(Attempt& attempt, Backend& backend, Worker& worker);
// Lends the attempt a connection: a pooled one unless `fresh_only`, else a new one. Returns the
// failure when none could be opened (`conn` stays empty).
std::optional<Failure> lend_connection(Attempt& attempt, std::unique_ptr<UpstreamConn>& conn,
                                       Worker& worker, bool fresh_only);
// The attempt ended (ok: a complete response): latency to the backend and the policy.
void end_attempt(Attempt& attempt, Worker& worker, bool ok);
// The client went away: the backend is not blamed.
void cancel_attempt(Attempt& attempt);
// Books a failed attempt: a local failure leaves the backend's health as it was; any other
// ends the attempt, marks the backend down when `failure.mark_down`, counts a bad response.
void count_failure(Attempt& attempt, Worker& worker, Failure failure);
// Books a failed attempt (count_failure) and decides what follows (judge_failure). On Retry
// and ResendFresh the request's retry state, `tried` and the backend's retry count are updated
// already: the owner dispatches again. On Reply the owner answers (naming attempt.backend
// when the verdict says so). The owner gives the connection back first.
Verdict settle_failure(Attempt& attempt, Worker& worker, Failure failure, RetryState& retry,
                       std::vector<Backend*>& tried);
// Writes what `out` holds past attempt.sent until the socket is full; the failure when the
// write failed. Written bytes stay in `out` for a retry while the request is small and no
// response byte came; once they are dropped, `intact` turns false.
std::optional<Failure> write_request(Attempt& attempt, UpstreamConn& conn, Buffer& out,
                                     bool& intact);
// What the backend connection's events mean, before the owner writes and reads: Wait (a
// connect or handshake goes on), Failed (`failure`), or Go: `flush` the request (`connected`:
// the connect just completed), then read when `readable`, if the attempt still holds the
// connection after the flush.
struct UpstreamEvents {
  enum class Next : std::uint8_t { Wait, Failed, Go };
  Next next = Next::Go;
  Failure failure{Cause::Connect, false};
  bool connected = false;
  bool flush = false;
  bool readable = false;
};
UpstreamEvents take_upstream_events(Attempt& attempt, UpstreamConn& conn, std::uint32_t events);
// One read from the backend into `in`. Done: bytes appended, a byte of the response arrived,
// upstream_readable cleared once the socket is drained (a FIN came: read on to the EOF).
// Otherwise upstream_readable is cleared; WouldBlock sets read_wants_out (TLS WANT_WRITE).
net::IoStatus read_response(Attempt& attempt, UpstreamConn& conn, Buffer& in);
// Feeds the response head received so far (`in` from its start) to `parser`: NeedMore (up to
// kMaxResponseHeadBytes), Bad (garbage, or a head too large) or Done with its length.
struct HeadStep {
  enum class Kind : std::uint8_t { NeedMore, Bad, Done };
  Kind kind = Kind::NeedMore;
  std::size_t head_len = 0;
};
HeadStep feed_response_head(Attempt& attempt, http::ResponseParser& parser, const Buffer& in);
// May the connection go back to the pool after a complete response? Only when nothing is left
// on it: every request byte sent, no byte beyond the response received or unread, no FIN.
bool may_pool(const Attempt& attempt, bool reusable, bool request_sent, bool input_left);
// Takes the connection from the attempt: to the backend's pool when `reusable`, else retired.
void release_connection(Attempt& attempt, std::unique_ptr<UpstreamConn>& conn, Worker& worker,
                        bool reusable);

// Definitions of the steps above that run for every request: inline, as the copies they
// replaced in ProxySession and H2Stream were (callgrind instructions per request).

inline void begin_attempt(Attempt& attempt, Backend& backend, Worker& worker) {
  attempt.backend = &backend;
  attempt.start_ns = worker.loop().now_ns();
  backend.on_start();
  worker.policy().on_start(backend);
  attempt.active = true;
}

inline std::optional<Failure> lend_connection(Attempt& attempt, std::unique_ptr<UpstreamConn>& conn,
                                              Worker& worker, bool fresh_only) {
  if (!fresh_only) conn = attempt.backend->take_idle();
  if (conn) {
    attempt.reused = conn->reused();
    return std::nullopt;
  }
  bool local = false;
  auto opened = UpstreamConn::open(worker.loop(), *attempt.backend, worker.opener(), local);
  if (!opened) return Failure{local ? Cause::Local : Cause::Connect, !local};
  conn = std::move(*opened);
  return std::nullopt;
}

inline void end_attempt(Attempt& attempt, Worker& worker, bool ok) {
  if (!attempt.active) return;
  attempt.active = false;
  const std::int64_t latency = worker.loop().now_ns() - attempt.start_ns;
  attempt.backend->on_finish(ok, latency);
  worker.policy().on_finish(*attempt.backend, ok, latency);
}

inline std::optional<Failure> write_request(Attempt& attempt, UpstreamConn& conn, Buffer& out,
                                            bool& intact) {
  while (attempt.sent < out.size()) {
    const std::size_t left = out.size() - attempt.sent;
    std::size_t n = 0;
    auto status = conn.stream().write(out.data() + attempt.sent, left, n);
    if (status == net::IoStatus::WouldBlock) break;
    if (status != net::IoStatus::Done)
      return write_failure(attempt.progress(), conn.stream().error());
    attempt.sent += n;
    attempt.wrote = true;
    if (n < left) break;  // the socket is full: EPOLLOUT says when to go on
  }
  // Keep the request whole for a retry while that is still possible and cheap.
  if (attempt.sent > 0 && (attempt.resp_started || out.size() > kRetainBytes)) {
    out.consume(attempt.sent);
    attempt.sent = 0;
    intact = false;
  }
  return std::nullopt;
}

inline UpstreamEvents take_upstream_events(Attempt& attempt, UpstreamConn& conn,
                                           std::uint32_t events) {
  // A FIN or reset: a short read no longer means the socket is drained (see read_response).
  if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) attempt.upstream_closed = true;
  UpstreamEvents out;
  out.readable = events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR);
  if (conn.connecting()) {
    if (conn.tcp_connecting() && !(events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
      out.next = UpstreamEvents::Next::Wait;
      return out;
    }
    int err = 0;
    const net::IoStatus status = conn.advance_connect(err);
    if (status == net::IoStatus::WouldBlock) {
      out.next = UpstreamEvents::Next::Wait;  // the handshake goes on
    } else if (status != net::IoStatus::Done) {
      out.next = UpstreamEvents::Next::Failed;
      out.failure = connect_failure(err);  // the backend's, unless our own resources ran out
    } else {
      out.connected = true;
      out.flush = true;
    }
    return out;
  }
  if (events & EPOLLOUT) {
    // A read that stopped for the stream to send (TLS WANT_WRITE) goes on now.
    out.readable = out.readable || attempt.read_wants_out;
    attempt.read_wants_out = false;
    out.flush = true;
  }
  return out;
}

inline net::IoStatus read_response(Attempt& attempt, UpstreamConn& conn, Buffer& in) {
  char* p = in.tail(kReadChunk);
  const std::size_t room = in.tail_room();
  std::size_t n = 0;
  const net::IoStatus status = conn.stream().read(p, room, n);
  if (status == net::IoStatus::Done) {
    in.commit(n);
    // A short read drains the socket, unless a FIN came with the data: read on to the EOF.
    if (n < room && !attempt.upstream_closed) attempt.upstream_readable = false;
    attempt.resp_started = true;
    return status;
  }
  attempt.upstream_readable = false;
  if (status == net::IoStatus::WouldBlock) attempt.read_wants_out = conn.stream().wants_write();
  return status;
}

inline HeadStep feed_response_head(Attempt& attempt, http::ResponseParser& parser,
                                   const Buffer& in) {
  const http::Step step =
      parser.feed(in.data() + attempt.head_parsed, in.size() - attempt.head_parsed);
  if (step.event == http::Event::Error) return {HeadStep::Kind::Bad, 0};
  if (step.event == http::Event::NeedMore) {
    attempt.head_parsed = in.size();
    if (attempt.head_parsed <= kMaxResponseHeadBytes) return {HeadStep::Kind::NeedMore, 0};
    return {HeadStep::Kind::Bad, 0};
  }
  return {HeadStep::Kind::Done, attempt.head_parsed + step.consumed};
}

inline bool may_pool(const Attempt& attempt, bool reusable, bool request_sent, bool input_left) {
  return reusable && request_sent && !input_left && !attempt.upstream_readable &&
         !attempt.upstream_closed;
}

inline void release_connection(Attempt& attempt, std::unique_ptr<UpstreamConn>& conn,
                               Worker& worker, bool reusable) {
  if (!conn) return;
  std::unique_ptr<UpstreamConn> taken = std::move(conn);
  taken->set_owner(nullptr);
  attempt.upstream_readable = false;
  if (reusable) {
    taken->mark_used();
    taken->set_idle_since(worker.loop().now_ns());
    Backend& backend = taken->backend();
    taken = backend.put_idle(std::move(taken), worker.config().pool_max_idle);
  }
  if (taken) worker.retire(std::move(taken));
}

}  // namespace stampede::balancer
