// AttemptSteps: the order of an attempt's steps, the same for ProxySession (an HTTP/1.1 client)
// and H2Stream (an HTTP/2 stream) around the shared steps of attempt.h: pick a backend (or answer
// that none is left), start an attempt on a lent connection, act on that connection's events,
// write the request, read and parse the response, and settle a failed attempt (retry, resend on a
// fresh connection, or reply). What differs between the two (how a response head and body reach the
// client, how a failure after the head ends) stays in the owner's hooks.
//
// CRTP: Owner derives from AttemptSteps<Owner> and befriends it. The steps use the owner's
//   state: worker_, req_.is_head, req_.retry, tried_, attempt_, upstream_, upstream_in_,
//          upstream_out_, response_;
//   hooks: reset_attempt(), touch(), dispatch(), flush_upstream(), read_upstream(),
//          handle_upstream_events(events), on_response_head(head_len), relay_raw_body(bytes),
//          response_complete(reusable), response_failed(cause), release_upstream(reusable),
//          reply_local(status, error, backend_name).
// Every step runs on the worker's thread. None is virtual: they run for every request
// (callgrind instructions per request).
#pragma once

#include <sys/epoll.h>

#include <cstdint>
#include <string_view>

#include "balancer/attempt.h"
#include "balancer/attempt_rules.h"
#include "balancer/backend.h"
#include "balancer/policy.h"
#include "balancer/worker.h"
#include "http/response_parser.h"

namespace stampede::balancer {

template <class Owner>
class AttemptSteps {
 protected:
  // The worker's policy picks a backend not tried yet for this request (`session_key`: its
  // sticky key). Null when none is left: the request was answered (503, or 502 naming the last
  // backend tried).
  Backend* pick_backend(std::string_view session_key) {
    Owner& o = owner();
    RequestContext ctx{o.worker_.loop().now_ns(), session_key, o.tried_};
    Backend* backend = o.worker_.policy().pick(ctx);
    if (!backend) {
      const Verdict verdict = judge_no_backend(!o.tried_.empty());
      o.reply_local(verdict.status, verdict.error,
                    verdict.names_backend ? o.tried_.back()->name() : std::string_view{});
    }
    return backend;
  }

  // Starts an attempt at `backend` on a pooled or a new connection, then sends (or connects);
  // a connection that cannot be opened fails the attempt.
  void start_attempt(Backend* backend) {
    Owner& o = owner();
    o.reset_attempt();
    o.tried_.push_back(backend);
    begin_attempt(o.attempt_, *backend, o.worker_);
    o.upstream_in_.clear();
    o.response_.reset();
    if (o.req_.is_head) o.response_.expect_no_body();
    if (auto failure =
            lend_connection(o.attempt_, o.upstream_, o.worker_, o.req_.retry.fresh_only)) {
      attempt_failed(*failure);
      return;
    }
    o.upstream_->set_owner(&o);
    o.touch();
    if (!o.upstream_->connecting()) {
      o.flush_upstream();
    } else if (!o.upstream_->tcp_connecting()) {
      o.handle_upstream_events(EPOLLOUT);  // connected already (an in-memory stream): handshake
    }
  }

  // The lent connection's events, once the owner found them its own: connect, write, read.
  void forward_upstream_events(std::uint32_t events) {
    Owner& o = owner();
    UpstreamConn* conn = o.upstream_.get();
    const UpstreamEvents next = take_upstream_events(o.attempt_, *conn, events);
    if (next.next == UpstreamEvents::Next::Wait) return;
    if (next.next == UpstreamEvents::Next::Failed) {
      attempt_failed(next.failure);
      return;
    }
    if (next.connected) o.touch();
    if (next.flush) o.flush_upstream();
    if (o.upstream_.get() != conn) return;  // the attempt ended while writing
    if (next.readable) {
      o.attempt_.upstream_readable = true;
      o.read_upstream();
    }
  }

  // Writes the request as far as the lent connection takes it. False when there is nothing to
  // go on with: no connection ready to write, or the write failed the attempt.
  bool write_upstream() {
    Owner& o = owner();
    if (!o.upstream_ || o.upstream_->connecting()) return false;
    if (auto failure =
            write_request(o.attempt_, *o.upstream_, o.upstream_out_, o.req_.retry.intact)) {
      attempt_failed(*failure);
      return false;
    }
    return true;
  }

  // One read from the lent connection `conn`, and what follows: More (bytes came and the
  // exchange goes on), Drained (nothing more to read now) or Ended (the exchange ended: complete,
  // failed, or retried).
  enum class ReadStep : std::uint8_t { More, Drained, Ended };
  ReadStep read_step(UpstreamConn& conn) {
    Owner& o = owner();
    const net::IoStatus status = read_response(o.attempt_, conn, o.upstream_in_);
    if (status == net::IoStatus::Done) {
      o.touch();
      return on_upstream_data() ? ReadStep::More : ReadStep::Ended;
    }
    if (status == net::IoStatus::WouldBlock) return ReadStep::Drained;
    if (status == net::IoStatus::Eof) {
      on_upstream_eof();
    } else {
      on_upstream_error(conn.stream().error());
    }
    return ReadStep::Ended;
  }

  // Parses what arrived: the head (to on_response_head), then the body, de-chunked through the
  // parser's body callback, or raw through relay_raw_body. False when the exchange ended.
  bool on_upstream_data() {
    Owner& o = owner();
    if (!o.attempt_.resp_head_done) {
      const HeadStep head = feed_response_head(o.attempt_, o.response_, o.upstream_in_);
      if (head.kind == HeadStep::Kind::NeedMore) return true;
      if (head.kind == HeadStep::Kind::Bad) {
        attempt_failed({Cause::BadResponse, false});
        return false;
      }
      if (!o.on_response_head(head.head_len)) return false;
    }
    http::Step step = o.response_.feed(o.upstream_in_.data(), o.upstream_in_.size());
    if (step.event == http::Event::Error) {
      o.response_failed(Cause::BadResponse);
      return false;
    }
    o.relay_raw_body(step.consumed);
    o.upstream_in_.consume(step.consumed);
    if (step.event == http::Event::MessageComplete) {
      o.response_complete(o.response_.keep_alive());
      return false;
    }
    return true;
  }

  // The response head was handed on (`head_len` bytes of upstream_in_): the body follows.
  void response_head_taken(std::size_t head_len) {
    Owner& o = owner();
    o.upstream_in_.consume(head_len);
    o.attempt_.head_parsed = 0;
    o.attempt_.resp_head_done = true;
  }

  // The backend closed the connection: the end of a close-delimited response, a response cut
  // short, or no response at all (a dead backend, or a keep-alive connection the backend closed
  // as we reused it: not marked down here; a refused reconnect will say which).
  void on_upstream_eof() {
    Owner& o = owner();
    if (o.attempt_.resp_head_done) {
      if (o.response_.finish().event == http::Event::MessageComplete) {
        o.response_complete(false);
      } else {
        o.response_failed(Cause::BadResponse);  // cut short
      }
      return;
    }
    attempt_failed(read_failure(o.attempt_.progress(), true, 0));
  }

  // A read from the backend failed (`err`: the stream's error).
  void on_upstream_error(int err) {
    Owner& o = owner();
    if (o.attempt_.resp_head_done) {
      o.response_failed(Cause::BadResponse);
      return;
    }
    attempt_failed(read_failure(o.attempt_.progress(), false, err));
  }

  // A pooled connection the backend had closed (unannounced, or racing our request) is resent
  // on a fresh one; attempt_rules.h says when, and what the client gets otherwise.
  void attempt_failed(Failure failure) {
    Owner& o = owner();
    o.release_upstream(false);
    const Verdict verdict = settle_failure(o.attempt_, o.worker_, failure, o.req_.retry, o.tried_);
    if (verdict.next != Next::Reply) {
      o.dispatch();
      return;
    }
    o.reply_local(verdict.status, verdict.error,
                  verdict.names_backend ? o.attempt_.backend->name() : std::string_view{});
  }

 private:
  Owner& owner() { return static_cast<Owner&>(*this); }
};

}  // namespace stampede::balancer
