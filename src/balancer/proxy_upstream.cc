// ProxySession, backend side: picking, connecting, sending, relaying the response, retrying.
#include <errno.h>
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
    if (tried_.empty()) {
      reply_local(503, "no backend", {});
    } else {
      reply_local(502, "backend unreachable", tried_.back()->name());
    }
    return;
  }
  req_.dispatched = true;
  start_attempt(backend);
}

void ProxySession::reset_attempt(Backend* backend) {
  if (attempt_.dechunk) response_.set_body_callback({});
  attempt_ = AttemptState{.backend = backend, .start_ns = worker_.loop().now_ns()};
}

void ProxySession::start_attempt(Backend* backend) {
  reset_attempt(backend);
  tried_.push_back(backend);
  backend->on_start();
  worker_.policy().on_start(*backend);
  attempt_.active = true;
  upstream_in_.clear();
  response_.reset();
  if (req_.is_head) response_.expect_no_body();
  if (!req_.fresh_only) upstream_ = backend->take_idle();
  if (upstream_) {
    attempt_.reused = upstream_->reused();
  } else {
    bool local = false;
    auto conn = UpstreamConn::open(worker_.loop(), *backend, worker_.opener(), local);
    if (!conn) {
      attempt_failed(local ? Cause::Local : Cause::Connect, !local);
      return;
    }
    upstream_ = std::move(*conn);
  }
  upstream_->set_owner(this);
  touch();
  if (!upstream_->connecting()) {
    flush_upstream();
  } else if (!upstream_->tcp_connecting()) {
    on_upstream_events(EPOLLOUT);  // connected already (an in-memory stream): handshake now
  }
}

void ProxySession::end_attempt(bool ok) {
  if (!attempt_.active) return;
  attempt_.active = false;
  const std::int64_t latency = worker_.loop().now_ns() - attempt_.start_ns;
  attempt_.backend->on_finish(ok, latency);
  worker_.policy().on_finish(*attempt_.backend, ok, latency);
}

void ProxySession::cancel_attempt() {
  if (!attempt_.active) return;
  attempt_.active = false;
  attempt_.backend->on_cancel();
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
  // A FIN or reset: a short read no longer means the socket is drained (see read_upstream).
  if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) attempt_.upstream_closed = true;
  UpstreamConn* conn = upstream_.get();
  bool readable = events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR);
  if (conn->connecting()) {
    if (conn->tcp_connecting() && !(events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) return;
    int err = 0;
    const net::IoStatus status = conn->advance_connect(err);
    if (status == net::IoStatus::WouldBlock) return;  // the handshake goes on
    if (status != net::IoStatus::Done) {
      // A refused connect or a failed handshake: the backend's; our own resources: not.
      const bool local = net::is_local_resource_error(err);
      attempt_failed(local ? Cause::Local : Cause::Connect, !local);
      return;
    }
    touch();
    flush_upstream();
  } else if (events & EPOLLOUT) {
    // A read that stopped for the stream to send (TLS WANT_WRITE) goes on now.
    readable = readable || attempt_.read_wants_out;
    attempt_.read_wants_out = false;
    flush_upstream();
  }
  if (upstream_.get() != conn) return;  // the attempt ended while writing
  if (readable) {
    attempt_.upstream_readable = true;
    read_upstream();
  }
}

void ProxySession::flush_upstream() {
  if (!upstream_ || upstream_->connecting()) return;
  UpstreamConn* conn = upstream_.get();
  while (attempt_.sent < upstream_out_.size()) {
    const std::size_t left = upstream_out_.size() - attempt_.sent;
    std::size_t n = 0;
    auto status = conn->stream().write(upstream_out_.data() + attempt_.sent, left, n);
    if (status == net::IoStatus::WouldBlock) break;
    if (status != net::IoStatus::Done) {
      const int err = conn->stream().error();
      const bool reset = err == ECONNRESET || err == EPIPE;
      attempt_failed(attempt_.wrote ? Cause::NoResponse : Cause::NotSent,
                     reset && !attempt_.reused);
      return;
    }
    attempt_.sent += n;
    attempt_.wrote = true;
    if (n < left) break;  // the socket is full: EPOLLOUT says when to go on
  }
  // Keep the request whole for a retry while that is still possible and cheap.
  if (attempt_.sent > 0 && (attempt_.resp_started || upstream_out_.size() > kRetainBytes)) {
    upstream_out_.consume(attempt_.sent);
    attempt_.sent = 0;
    req_.intact = false;
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
    char* p = upstream_in_.tail(kReadChunk);
    const std::size_t room = upstream_in_.tail_room();
    std::size_t n = 0;
    auto status = conn->stream().read(p, room, n);
    if (status == net::IoStatus::Done) {
      upstream_in_.commit(n);
      // A short read drains the socket, unless a FIN came with the data: read on to the EOF.
      if (n < room && !attempt_.upstream_closed) attempt_.upstream_readable = false;
      attempt_.resp_started = true;
      touch();
      if (!on_upstream_data()) return;
      continue;
    }
    attempt_.upstream_readable = false;
    if (status == net::IoStatus::WouldBlock) {
      attempt_.read_wants_out = conn->stream().wants_write();
      break;
    }
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
    http::Step step = response_.feed(upstream_in_.data() + attempt_.head_parsed,
                                     upstream_in_.size() - attempt_.head_parsed);
    if (step.event == http::Event::Error) {
      attempt_failed(Cause::BadResponse, false);
      return false;
    }
    if (step.event == http::Event::NeedMore) {
      attempt_.head_parsed = upstream_in_.size();
      if (attempt_.head_parsed <= kMaxResponseHeadBytes) return true;
      attempt_failed(Cause::BadResponse, false);
      return false;
    }
    if (!on_response_head(attempt_.head_parsed + step.consumed)) return false;
  }
  // Body bytes go out raw (chunk framing included), or through the body callback de-chunked.
  http::Step step = response_.feed(upstream_in_.data(), upstream_in_.size());
  if (step.event == http::Event::Error) {
    response_failed(Cause::BadResponse);
    return false;
  }
  if (!attempt_.dechunk) client_out_.append(upstream_in_.data(), step.consumed);
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
    attempt_failed(Cause::BadResponse, false);  // a switch nobody asked for
    return false;
  }
  const bool bodiless = req_.is_head || status == 204 || status == 304;
  const bool close_delimited = !bodiless && !response_.chunked() && !response_.content_length();
  // An HTTP/1.0 client cannot take chunked framing: its body is relayed de-chunked and ends
  // with the connection (the backend connection stays pooled).
  attempt_.dechunk = req_.http10 && !bodiless && response_.chunked();
  const bool keep =
      req_.keep_alive && req_.done && !close_delimited && !attempt_.dechunk && !close_after_flush_;
  ResponseHeadOptions options{attempt_.backend->name(), keep, req_.http10, false, attempt_.dechunk};
  attempt_.response_at = client_written_ + client_out_.size();
  if (!append_response_head(client_out_, {upstream_in_.data(), head_len}, options)) {
    attempt_.dechunk = false;
    attempt_failed(Cause::BadResponse, false);
    return false;
  }
  if (attempt_.dechunk) {
    response_.set_body_callback([this](std::string_view bytes) { client_out_.append(bytes); });
  }
  if (!keep) close_after_flush_ = true;
  upstream_in_.consume(head_len);
  attempt_.head_parsed = 0;
  attempt_.resp_head_done = true;
  return true;
}

void ProxySession::response_complete(bool reusable) {
  end_attempt(true);
  // Pool the connection only when nothing is left on it: every request byte sent, no byte
  // beyond the response received or still unread in the socket, no FIN from the backend.
  release_upstream(reusable && req_.done && upstream_in_.empty() && !attempt_.upstream_readable &&
                   !attempt_.upstream_closed && attempt_.sent == upstream_out_.size());
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
  attempt_failed(attempt_.resp_started ? Cause::BadResponse : Cause::NoResponse, false);
}

void ProxySession::on_upstream_error(int err) {
  if (attempt_.resp_head_done) {
    response_failed(Cause::BadResponse);
    return;
  }
  const bool reset = err == ECONNRESET;
  attempt_failed(attempt_.resp_started ? Cause::BadResponse : Cause::NoResponse,
                 reset && !attempt_.reused);
}

// The response failed after its head was queued for the client. While none of it reached
// the client it is withdrawn and replaced by the balancer's own 502 (504 for a timeout);
// after that, closing the client connection is all that is left.
void ProxySession::response_failed(Cause failure) {
  if (client_written_ <= attempt_.response_at) {
    client_out_.truncate(static_cast<std::size_t>(attempt_.response_at - client_written_));
    attempt_.resp_head_done = false;
    attempt_failed(failure, false);
    return;
  }
  Backend* backend = attempt_.backend;
  end_attempt(false);
  if (failure == Cause::BadResponse) backend->on_bad_response();
  close();
}

void ProxySession::attempt_failed(Cause failure, bool mark_down) {
  Backend* backend = attempt_.backend;
  if (failure == Cause::Local) {
    // Our own descriptors, memory or ports ran out: nothing about the backend, whose counts
    // and health stay as they were; another backend would fail the same way.
    if (attempt_.active) backend->on_local_failure();
    attempt_.active = false;
    release_upstream(false);
    worker_.count_local_error(LocalError::Connect);
    reply_local(503, "local resources exhausted", {});
    return;
  }
  end_attempt(false);
  release_upstream(false);
  if (mark_down) worker_.passive_failure(*backend);
  if (failure == Cause::BadResponse) backend->on_bad_response();
  // A pooled connection the backend had closed (unannounced, or racing our request): the
  // request goes again on a fresh connection, to any live backend, this one included, when
  // no byte of it was taken or it is idempotent; it does not use up --retries.
  const bool nothing_reached = failure == Cause::Connect || failure == Cause::NotSent;
  const bool stale = attempt_.reused && (failure == Cause::NotSent ||
                                         (failure == Cause::NoResponse && req_.resendable));
  if (req_.intact && stale) {
    tried_.pop_back();
    req_.fresh_only = true;
    backend->on_retry();
    dispatch();
    return;
  }
  const bool resend = failure == Cause::NoResponse && req_.idempotent && req_.retries_left > 0;
  if (req_.intact && (nothing_reached || resend)) {
    if (!nothing_reached) --req_.retries_left;
    backend->on_retry();
    dispatch();
    return;
  }
  if (failure == Cause::Timeout) {
    reply_local(504, "backend timeout", backend->name());
  } else if (failure == Cause::BadResponse) {
    reply_local(502, "bad backend response", backend->name());
  } else {
    reply_local(502, "backend unreachable", backend->name());
  }
}

void ProxySession::release_upstream(bool reusable) {
  if (!upstream_) return;
  std::unique_ptr<UpstreamConn> conn = std::move(upstream_);
  conn->set_owner(nullptr);
  attempt_.upstream_readable = false;
  if (reusable) {
    conn->mark_used();
    conn->set_idle_since(worker_.loop().now_ns());
    Backend& backend = conn->backend();
    conn = backend.put_idle(std::move(conn), worker_.config().pool_max_idle);
  }
  if (conn) worker_.retire(std::move(conn));
}

}  // namespace stampede::balancer
