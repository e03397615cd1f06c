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
  dispatched_ = true;
  start_attempt(backend);
}

void ProxySession::start_attempt(Backend* backend) {
  backend_ = backend;
  tried_.push_back(backend);
  backend->on_start();
  worker_.policy().on_start(*backend);
  attempt_active_ = true;
  attempt_start_ns_ = worker_.loop().now_ns();
  attempt_wrote_ = false;
  resp_started_ = false;
  resp_head_done_ = false;
  upstream_readable_ = false;
  upstream_sent_ = 0;
  head_parsed_ = 0;
  upstream_in_.clear();
  response_.reset();
  if (req_is_head_) response_.expect_no_body();
  upstream_ = backend->take_idle();
  if (!upstream_) {
    bool local = false;
    auto conn = UpstreamConn::open(worker_.loop(), *backend, local);
    if (!conn) {
      attempt_failed(local ? Failure::Local : Failure::Connect, !local);
      return;
    }
    upstream_ = std::move(*conn);
  }
  upstream_->set_owner(this);
  touch();
  if (!upstream_->connecting()) flush_upstream();
}

void ProxySession::end_attempt(bool ok) {
  if (!attempt_active_) return;
  attempt_active_ = false;
  const std::int64_t latency = worker_.loop().now_ns() - attempt_start_ns_;
  backend_->on_finish(ok, latency);
  worker_.policy().on_finish(*backend_, ok, latency);
}

void ProxySession::cancel_attempt() {
  if (!attempt_active_) return;
  attempt_active_ = false;
  backend_->on_cancel();
}

void ProxySession::on_upstream_events(std::uint32_t events) {
  if (!upstream_ || phase_ == Phase::Closed) return;
  if (phase_ == Phase::Tunnel) {
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) upstream_readable_ = true;
    tunnel_step();
    return;
  }
  UpstreamConn* conn = upstream_.get();
  if (conn->connecting()) {
    if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) return;
    if (const int err = conn->finish_connect(); err != 0) {
      const bool local = net::is_local_resource_error(err);
      attempt_failed(local ? Failure::Local : Failure::Connect, !local);
      return;
    }
    touch();
    flush_upstream();
  } else if (events & EPOLLOUT) {
    flush_upstream();
  }
  if (upstream_.get() != conn) return;  // the attempt ended while writing
  if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
    upstream_readable_ = true;
    read_upstream();
  }
}

void ProxySession::flush_upstream() {
  if (!upstream_ || upstream_->connecting()) return;
  UpstreamConn* conn = upstream_.get();
  while (upstream_sent_ < upstream_out_.size()) {
    const std::size_t left = upstream_out_.size() - upstream_sent_;
    std::size_t n = 0;
    auto status = net::write_some(conn->fd(), upstream_out_.data() + upstream_sent_, left, n);
    if (status == net::IoStatus::WouldBlock) break;
    if (status != net::IoStatus::Done) {
      const bool reset = errno == ECONNRESET || errno == EPIPE;
      attempt_failed(attempt_wrote_ ? Failure::NoResponse : Failure::NotSent,
                     reset && !conn->reused());
      return;
    }
    upstream_sent_ += n;
    attempt_wrote_ = true;
    if (n < left) break;  // the socket is full: EPOLLOUT says when to go on
  }
  // Keep the request whole for a retry while that is still possible and cheap.
  if (upstream_sent_ > 0 && (resp_started_ || upstream_out_.size() > kRetainBytes)) {
    upstream_out_.consume(upstream_sent_);
    upstream_sent_ = 0;
    intact_ = false;
  }
  const bool throttled = client_readable_ || !client_in_.empty();
  if (!req_done_ && throttled && upstream_out_.size() - upstream_sent_ < kMaxPendingBytes / 2) {
    drive_client();
  }
}

void ProxySession::read_upstream() {
  UpstreamConn* conn = upstream_.get();
  while (upstream_readable_ && upstream_ && upstream_.get() == conn && phase_ == Phase::Forward) {
    if (resp_head_done_ && client_out_.size() >= kMaxPendingBytes) break;  // client is slow
    char* p = upstream_in_.tail(kReadChunk);
    const std::size_t room = upstream_in_.tail_room();
    std::size_t n = 0;
    auto status = net::read_some(conn->fd(), p, room, n);
    if (status == net::IoStatus::Done) {
      upstream_in_.commit(n);
      if (n < room) upstream_readable_ = false;  // a short read drains the socket
      resp_started_ = true;
      touch();
      if (!on_upstream_data()) return;
      continue;
    }
    upstream_readable_ = false;
    if (status == net::IoStatus::WouldBlock) break;
    if (status == net::IoStatus::Eof) {
      on_upstream_eof();
    } else {
      on_upstream_error(errno);
    }
    return;
  }
  flush_client();
}

// Parses what arrived; false when the exchange ended (or the session closed).
bool ProxySession::on_upstream_data() {
  if (!resp_head_done_) {
    http::Step step =
        response_.feed(upstream_in_.data() + head_parsed_, upstream_in_.size() - head_parsed_);
    if (step.event == http::Event::Error) {
      attempt_failed(Failure::BadResponse, false);
      return false;
    }
    if (step.event == http::Event::NeedMore) {
      head_parsed_ = upstream_in_.size();
      if (head_parsed_ <= kMaxResponseHeadBytes) return true;
      attempt_failed(Failure::BadResponse, false);
      return false;
    }
    if (!on_response_head(head_parsed_ + step.consumed)) return false;
  }
  http::Step step = response_.feed(upstream_in_.data(), upstream_in_.size());
  if (step.event == http::Event::Error) {
    end_attempt(false);
    close();  // the head is already out: cutting the connection is all that is left
    return false;
  }
  client_out_.append(upstream_in_.data(), step.consumed);
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
    if (req_upgrade_ && req_done_ && enter_tunnel(head_len)) return false;
    attempt_failed(Failure::BadResponse, false);  // a switch nobody asked for
    return false;
  }
  const bool bodiless = req_is_head_ || status == 204 || status == 304;
  const bool close_delimited = !bodiless && !response_.chunked() && !response_.content_length();
  const bool keep = req_keep_alive_ && req_done_ && !close_delimited && !close_after_flush_;
  ResponseHeadOptions options{backend_->name(), keep, req_http10_};
  if (!append_response_head(client_out_, {upstream_in_.data(), head_len}, options)) {
    attempt_failed(Failure::BadResponse, false);
    return false;
  }
  if (!keep) close_after_flush_ = true;
  upstream_in_.consume(head_len);
  head_parsed_ = 0;
  resp_head_done_ = true;
  return true;
}

void ProxySession::response_complete(bool reusable) {
  end_attempt(true);
  // Pool the connection only when nothing is left on it: every request byte sent, no byte
  // beyond the response received or still unread in the socket.
  release_upstream(reusable && req_done_ && upstream_in_.empty() && !upstream_readable_ &&
                   upstream_sent_ == upstream_out_.size());
  if (!req_done_) close_after_flush_ = true;
  finish_exchange();
}

void ProxySession::on_upstream_eof() {
  if (resp_head_done_) {
    http::Step step = response_.finish();
    if (step.event == http::Event::MessageComplete) {
      response_complete(false);
      return;
    }
    end_attempt(false);
    close();
    return;
  }
  // Closed before a response: a dead backend, or a keep-alive connection the backend closed
  // as we reused it. Not marked down here; a refused reconnect will say which.
  attempt_failed(resp_started_ ? Failure::BadResponse : Failure::NoResponse, false);
}

void ProxySession::on_upstream_error(int err) {
  if (resp_head_done_) {
    end_attempt(false);
    close();
    return;
  }
  const bool reset = err == ECONNRESET;
  attempt_failed(resp_started_ ? Failure::BadResponse : Failure::NoResponse,
                 reset && !upstream_->reused());
}

void ProxySession::attempt_failed(Failure failure, bool mark_down) {
  Backend* backend = backend_;
  if (failure == Failure::Local) {
    // Our own descriptors, memory or ports ran out: nothing about the backend, whose counts
    // and health stay as they were; another backend would fail the same way.
    if (attempt_active_) backend->on_local_failure();
    attempt_active_ = false;
    release_upstream(false);
    worker_.count_local_error(LocalError::Connect);
    reply_local(503, "local resources exhausted", {});
    return;
  }
  end_attempt(false);
  release_upstream(false);
  if (mark_down) worker_.passive_failure(*backend);
  const bool nothing_reached = failure == Failure::Connect || failure == Failure::NotSent;
  const bool resend = failure == Failure::NoResponse && req_idempotent_ && retries_left_ > 0;
  if (intact_ && (nothing_reached || resend)) {
    if (!nothing_reached) --retries_left_;
    backend->on_retry();
    dispatch();
    return;
  }
  if (failure == Failure::Timeout) {
    reply_local(504, "backend timeout", backend->name());
  } else if (failure == Failure::BadResponse) {
    reply_local(502, "bad backend response", backend->name());
  } else {
    reply_local(502, "backend unreachable", backend->name());
  }
}

void ProxySession::release_upstream(bool reusable) {
  if (!upstream_) return;
  std::unique_ptr<UpstreamConn> conn = std::move(upstream_);
  conn->set_owner(nullptr);
  upstream_readable_ = false;
  if (reusable) {
    conn->mark_used();
    conn->set_idle_since(worker_.loop().now_ns());
    Backend& backend = conn->backend();
    conn = backend.put_idle(std::move(conn), worker_.config().pool_max_idle);
  }
  if (conn) worker_.retire(std::move(conn));
}

}  // namespace stampede::balancer
