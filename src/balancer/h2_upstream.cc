// H2Stream, the backend side: picking, connecting, sending, relaying the response, retrying
// (the rules of proxy_upstream.cc, per stream).
#include <errno.h>
#include <sys/epoll.h>

#include "balancer/backend.h"
#include "balancer/h2_session.h"
#include "balancer/h2_stream.h"
#include "balancer/session_limits.h"
#include "balancer/worker.h"
#include "net/socket.h"

namespace stampede::balancer {

void H2Stream::dispatch() {
  RequestContext ctx{worker_.loop().now_ns(), {}, tried_};
  std::string key;
  if (worker_.config().strategy == Strategy::Sticky) {
    key.assign(fields_.value(worker_.config().sticky_header));
    ctx.session = key;
  }
  Backend* backend = worker_.policy().pick(ctx);
  if (!backend) {
    if (tried_.empty()) {
      reply_local(503, "no backend", {});
    } else {
      reply_local(502, "backend unreachable", tried_.back()->name());
    }
    return;
  }
  start_attempt(backend);
}

void H2Stream::start_attempt(Backend* backend) {
  attempt_ = AttemptState{.backend = backend, .start_ns = worker_.loop().now_ns()};
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
    handle_upstream_events(EPOLLOUT);  // connected already (an in-memory stream)
  }
}

void H2Stream::end_attempt(bool ok) {
  if (!attempt_.active) return;
  attempt_.active = false;
  const std::int64_t latency = worker_.loop().now_ns() - attempt_.start_ns;
  attempt_.backend->on_finish(ok, latency);
  worker_.policy().on_finish(*attempt_.backend, ok, latency);
}

void H2Stream::cancel_attempt() {
  if (!attempt_.active) return;
  attempt_.active = false;
  attempt_.backend->on_cancel();
}

void H2Stream::on_upstream_events(std::uint32_t events) {
  session_.upstream_entry(*this, events);
}

void H2Stream::handle_upstream_events(std::uint32_t events) {
  if (!upstream_ || req_.closed) return;
  if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) attempt_.upstream_closed = true;
  UpstreamConn* conn = upstream_.get();
  bool readable = events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR);
  if (conn->connecting()) {
    if (conn->tcp_connecting() && !(events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) return;
    int err = 0;
    const net::IoStatus status = conn->advance_connect(err);
    if (status == net::IoStatus::WouldBlock) return;
    if (status != net::IoStatus::Done) {
      const bool local = net::is_local_resource_error(err);
      attempt_failed(local ? Cause::Local : Cause::Connect, !local);
      return;
    }
    touch();
    flush_upstream();
  } else if (events & EPOLLOUT) {
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

void H2Stream::flush_upstream() {
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
    if (n < left) break;
  }
  // Keep the request whole for a retry while that is still possible and cheap.
  if (attempt_.sent > 0 && (attempt_.resp_started || upstream_out_.size() > kRetainBytes)) {
    upstream_out_.consume(attempt_.sent);
    attempt_.sent = 0;
    req_.intact = false;
  }
  // The client may send more once little of its body waits for the backend.
  if (window_owed_ > 0 && upstream_out_.size() - attempt_.sent < kStreamWindow / 2) {
    session_.consume(id_, window_owed_);
    window_owed_ = 0;
  }
}

void H2Stream::pump() {
  if (upstream_ && attempt_.upstream_readable) read_upstream();
}

void H2Stream::read_upstream() {
  UpstreamConn* conn = upstream_.get();
  while (attempt_.upstream_readable && upstream_ && upstream_.get() == conn && !req_.closed) {
    if (attempt_.resp_head_done && body_.size() >= kStreamBuffer) {
      paused_ = true;  // the client's window is closed: the data provider says when to go on
      touch();
      return;
    }
    char* p = upstream_in_.tail(kReadChunk);
    const std::size_t room = upstream_in_.tail_room();
    std::size_t n = 0;
    auto status = conn->stream().read(p, room, n);
    if (status == net::IoStatus::Done) {
      upstream_in_.commit(n);
      if (n < room && !attempt_.upstream_closed) attempt_.upstream_readable = false;
      attempt_.resp_started = true;
      touch();
      if (!on_upstream_data()) return;
      continue;
    }
    attempt_.upstream_readable = false;
    if (status == net::IoStatus::WouldBlock) {
      attempt_.read_wants_out = conn->stream().wants_write();
      return;
    }
    if (status == net::IoStatus::Eof) {
      if (attempt_.resp_head_done) {
        if (response_.finish().event == http::Event::MessageComplete) {
          response_complete(false);
        } else {
          response_failed(Cause::BadResponse);  // cut short
        }
      } else {
        attempt_failed(attempt_.resp_started ? Cause::BadResponse : Cause::NoResponse, false);
      }
    } else if (attempt_.resp_head_done) {
      response_failed(Cause::BadResponse);
    } else {
      const bool reset = conn->stream().error() == ECONNRESET;
      attempt_failed(attempt_.resp_started ? Cause::BadResponse : Cause::NoResponse,
                     reset && !attempt_.reused);
    }
    return;
  }
}

// Parses what arrived; false when the exchange ended.
bool H2Stream::on_upstream_data() {
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
  // Body bytes reach body_ de-chunked, through the parser's body callback.
  http::Step step = response_.feed(upstream_in_.data(), upstream_in_.size());
  if (step.event == http::Event::Error) {
    response_failed(Cause::BadResponse);
    return false;
  }
  upstream_in_.consume(step.consumed);
  if (step.event == http::Event::MessageComplete) {
    response_complete(response_.keep_alive());
    return false;
  }
  return true;
}

bool H2Stream::on_response_head(std::size_t head_len) {
  if (!translate_response_head({upstream_in_.data(), head_len}, attempt_.backend->name(), head_)) {
    attempt_failed(Cause::BadResponse, false);  // a 101 nobody can be switched to, or garbage
    return false;
  }
  const int status = head_.status;
  const bool bodiless = req_.is_head || status == 204 || status == 304;
  char status_text[8];
  std::snprintf(status_text, sizeof status_text, "%d", status);
  std::vector<nghttp2_nv> nv;
  nv.reserve(head_.fields.size() + 1);
  auto add = [&nv](std::string_view name, std::string_view value) {
    nv.push_back({reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
                  reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(),
                  value.size(), NGHTTP2_NV_FLAG_NONE});
  };
  add(":status", status_text);
  for (const H2Field& f : head_.fields)
    add(f.name, f.value);
  submit(status, nv, !bodiless);  // nghttp2 copies the fields
  upstream_in_.consume(head_len);
  attempt_.head_parsed = 0;
  attempt_.resp_head_done = true;
  return true;
}

void H2Stream::response_complete(bool reusable) {
  end_attempt(true);
  release_upstream(reusable && req_.done && req_.end_queued && upstream_in_.empty() &&
                   !attempt_.upstream_readable && !attempt_.upstream_closed &&
                   attempt_.sent == upstream_out_.size());
  body_done_ = true;
  body_grew();
  if (!req_.done) {
    // Answered before the request's end: the rest of its body is not wanted.
    session_.consume(id_, window_owed_);
    window_owed_ = 0;
  }
  touch();
}

// After the response head was submitted nothing can be withdrawn: the stream is reset.
void H2Stream::response_failed(Cause failure) {
  Backend* backend = attempt_.backend;
  end_attempt(false);
  if (failure == Cause::BadResponse) backend->on_bad_response();
  reset(NGHTTP2_INTERNAL_ERROR);
}

void H2Stream::attempt_failed(Cause failure, bool mark_down) {
  Backend* backend = attempt_.backend;
  if (failure == Cause::Local) {
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

void H2Stream::release_upstream(bool reusable) {
  if (!upstream_) return;
  std::unique_ptr<UpstreamConn> conn = std::move(upstream_);
  conn->set_owner(nullptr);
  attempt_.upstream_readable = false;
  paused_ = false;
  if (reusable) {
    conn->mark_used();
    conn->set_idle_since(worker_.loop().now_ns());
    Backend& backend = conn->backend();
    conn = backend.put_idle(std::move(conn), worker_.config().pool_max_idle);
  }
  if (conn) worker_.retire(std::move(conn));
}

}  // namespace stampede::balancer
