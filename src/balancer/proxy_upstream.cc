// ProxySession, backend side: picking, connecting, sending, relaying the response, retrying.
#include <sys/epoll.h>

#include "balancer/head_rewrite.h"
#include "balancer/proxy_session.h"
#include "balancer/session_limits.h"
#include "balancer/worker.h"
#include "net/socket.h"

namespace stampede::balancer {

void ProxySession::dispatch() {
  RequestContext ctx{worker_.loop().now_ns(), session_key_, tried_};
  Backend* backend = worker_.policy().pick(ctx);
  if (!backend) {
    const Verdict verdict = judge_no_backend(!tried_.empty());
    reply_local(verdict.status, verdict.error,
                verdict.names_backend ? tried_.back()->name() : std::string_view{});
    return;
  }
  req_.dispatched = true;
  start_attempt(backend);
}

void ProxySession::reset_attempt() {
  if (relay_.dechunk) response_.set_body_callback({});
  attempt_ = Attempt{};
  relay_ = RelayState{};
}

void ProxySession::start_attempt(Backend* backend) {
  reset_attempt();
  tried_.push_back(backend);
  begin_attempt(attempt_, *backend, worker_);
  upstream_in_.clear();
  response_.reset();
  if (req_.is_head) response_.expect_no_body();
  if (auto failure = lend_connection(attempt_, upstream_, worker_, req_.retry.fresh_only)) {
    attempt_failed(*failure);
    return;
  }
  upstream_->set_owner(this);
  touch();
  if (!upstream_->connecting()) {
    flush_upstream();
  } else if (!upstream_->tcp_connecting()) {
    on_upstream_events(EPOLLOUT);  // connected already (an in-memory stream): handshake now
  }
}

void ProxySession::on_upstream_events(std::uint32_t events) {
  if (!upstream_ || phase_ == Phase::Closed) return;
  if (phase_ == Phase::Tunnel) {
    // EPOLLOUT also resumes a read that waited for the stream to send (TLS WANT_WRITE).
    if ((events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) ||
        ((events & EPOLLOUT) && upstream_->stream().wants_write())) {
      attempt_.upstream_readable = true;
    }
    tunnel_step();
    return;
  }
  UpstreamConn* conn = upstream_.get();
  const UpstreamEvents next = take_upstream_events(attempt_, *conn, events);
  if (next.next == UpstreamEvents::Next::Wait) return;
  if (next.next == UpstreamEvents::Next::Failed) {
    attempt_failed(next.failure);
    return;
  }
  if (next.connected) touch();
  if (next.flush) flush_upstream();
  if (upstream_.get() != conn) return;  // the attempt ended while writing
  if (next.readable) {
    attempt_.upstream_readable = true;
    read_upstream();
  }
}

void ProxySession::flush_upstream() {
  if (!upstream_ || upstream_->connecting()) return;
  if (auto failure = write_request(attempt_, *upstream_, upstream_out_, req_.retry.intact)) {
    attempt_failed(*failure);
    return;
  }
  const bool throttled = client_readable_ || !client_in_.empty();
  if (!req_.done && throttled && upstream_out_.size() - attempt_.sent < kMaxPendingBytes / 2) {
    drive_client();
  }
}

void ProxySession::read_upstream() {
  UpstreamConn* conn = upstream_.get();
  while (attempt_.upstream_readable && upstream_ && upstream_.get() == conn &&
         phase_ == Phase::Forward) {
    if (attempt_.resp_head_done && client_out_.size() >= kMaxPendingBytes) break;  // client is slow
    const net::IoStatus status = read_response(attempt_, *conn, upstream_in_);
    if (status == net::IoStatus::Done) {
      touch();
      if (!on_upstream_data()) return;
      continue;
    }
    if (status == net::IoStatus::WouldBlock) break;
    if (status == net::IoStatus::Eof) {
      on_upstream_eof();
    } else {
      on_upstream_error(conn->stream().error());
    }
    return;
  }
  flush_client();
}

// Parses what arrived; false when the exchange ended (or the session closed).
bool ProxySession::on_upstream_data() {
  if (!attempt_.resp_head_done) {
    const HeadStep head = feed_response_head(attempt_, response_, upstream_in_);
    if (head.kind == HeadStep::Kind::NeedMore) return true;
    if (head.kind == HeadStep::Kind::Bad) {
      attempt_failed({Cause::BadResponse, false});
      return false;
    }
    if (!on_response_head(head.head_len)) return false;
  }
  // Body bytes go out raw (chunk framing included), or through the body callback de-chunked.
  http::Step step = response_.feed(upstream_in_.data(), upstream_in_.size());
  if (step.event == http::Event::Error) {
    response_failed(Cause::BadResponse);
    return false;
  }
  if (!relay_.dechunk) client_out_.append(upstream_in_.data(), step.consumed);
  upstream_in_.consume(step.consumed);
  if (step.event == http::Event::MessageComplete) {
    response_complete(response_.keep_alive());
    return false;
  }
  return true;
}

bool ProxySession::on_response_head(std::size_t head_len) {
  const int status = response_.status();
  if (status == 101) {
    if (req_.upgrade && req_.done && enter_tunnel(head_len)) return false;
    attempt_failed({Cause::BadResponse, false});  // a switch nobody asked for
    return false;
  }
  const bool bodiless = req_.is_head || status == 204 || status == 304;
  const bool close_delimited = !bodiless && !response_.chunked() && !response_.content_length();
  // An HTTP/1.0 client cannot take chunked framing: its body is relayed de-chunked and ends
  // with the connection (the backend connection stays pooled).
  relay_.dechunk = req_.http10 && !bodiless && response_.chunked();
  const bool keep =
      req_.keep_alive && req_.done && !close_delimited && !relay_.dechunk && !close_after_flush_;
  ResponseHeadOptions options{attempt_.backend->name(), keep, req_.http10, false, relay_.dechunk};
  relay_.response_at = client_written_ + client_out_.size();
  if (!append_response_head(client_out_, {upstream_in_.data(), head_len}, options)) {
    relay_.dechunk = false;
    attempt_failed({Cause::BadResponse, false});
    return false;
  }
  if (relay_.dechunk) {
    response_.set_body_callback([this](std::string_view bytes) { client_out_.append(bytes); });
  }
  if (!keep) close_after_flush_ = true;
  upstream_in_.consume(head_len);
  attempt_.head_parsed = 0;
  attempt_.resp_head_done = true;
  return true;
}

void ProxySession::response_complete(bool reusable) {
  end_attempt(attempt_, worker_, true);
  // Pool the connection only when nothing is left on it: every request byte sent, no byte
  // beyond the response received or still unread in the socket, no FIN from the backend.
  release_upstream(may_pool(attempt_, reusable, req_.done && attempt_.sent == upstream_out_.size(),
                            !upstream_in_.empty()));
  if (!req_.done) close_after_flush_ = true;
  finish_exchange();
}

void ProxySession::on_upstream_eof() {
  if (attempt_.resp_head_done) {
    http::Step step = response_.finish();
    if (step.event == http::Event::MessageComplete) {
      response_complete(false);
      return;
    }
    response_failed(Cause::BadResponse);  // cut short
    return;
  }
  // Closed before a response: a dead backend, or a keep-alive connection the backend closed
  // as we reused it. Not marked down here; a refused reconnect will say which.
  attempt_failed(read_failure(attempt_.progress(), true, 0));
}

void ProxySession::on_upstream_error(int err) {
  if (attempt_.resp_head_done) {
    response_failed(Cause::BadResponse);
    return;
  }
  attempt_failed(read_failure(attempt_.progress(), false, err));
}

// The response failed after its head was queued for the client. While none of it reached
// the client it is withdrawn and replaced by the balancer's own 502 (504 for a timeout);
// after that, closing the client connection is all that is left.
void ProxySession::response_failed(Cause failure) {
  if (client_written_ <= relay_.response_at) {
    client_out_.truncate(static_cast<std::size_t>(relay_.response_at - client_written_));
    attempt_.resp_head_done = false;
    attempt_failed({failure, false});
    return;
  }
  count_failure(attempt_, worker_, {failure, false});
  close();
}

// A pooled connection the backend had closed (unannounced, or racing our request) is resent on
// a fresh one; attempt_rules.h says when, and what the client gets otherwise.
void ProxySession::attempt_failed(Failure failure) {
  release_upstream(false);
  const Verdict verdict = settle_failure(attempt_, worker_, failure, req_.retry, tried_);
  if (verdict.next != Next::Reply) {
    dispatch();
    return;
  }
  reply_local(verdict.status, verdict.error,
              verdict.names_backend ? attempt_.backend->name() : std::string_view{});
}

void ProxySession::release_upstream(bool reusable) {
  release_connection(attempt_, upstream_, worker_, reusable);
}

}  // namespace stampede::balancer
