// H2Stream, the backend side: picking, connecting, sending, relaying the response, retrying
// (the rules of proxy_upstream.cc, per stream).
#include <sys/epoll.h>

#include <charconv>

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
    const Verdict verdict = judge_no_backend(!tried_.empty());
    reply_local(verdict.status, verdict.error,
                verdict.names_backend ? tried_.back()->name() : std::string_view{});
    return;
  }
  start_attempt(backend);
}

void H2Stream::start_attempt(Backend* backend) {
  attempt_ = Attempt{};
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
    handle_upstream_events(EPOLLOUT);  // connected already (an in-memory stream)
  }
}

void H2Stream::on_upstream_events(std::uint32_t events) {
  session_.upstream_entry(*this, events);
}

void H2Stream::handle_upstream_events(std::uint32_t events) {
  if (!upstream_ || req_.closed) return;
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

void H2Stream::flush_upstream() {
  if (!upstream_ || upstream_->connecting()) return;
  if (auto failure = write_request(attempt_, *upstream_, upstream_out_, req_.retry.intact)) {
    attempt_failed(*failure);
    return;
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
    const net::IoStatus status = read_response(attempt_, *conn, upstream_in_);
    if (status == net::IoStatus::Done) {
      touch();
      if (!on_upstream_data()) return;
      continue;
    }
    if (status == net::IoStatus::WouldBlock) return;
    if (status == net::IoStatus::Eof) {
      if (attempt_.resp_head_done) {
        if (response_.finish().event == http::Event::MessageComplete) {
          response_complete(false);
        } else {
          response_failed(Cause::BadResponse);  // cut short
        }
      } else {
        attempt_failed(read_failure(attempt_.progress(), true, 0));
      }
    } else if (attempt_.resp_head_done) {
      response_failed(Cause::BadResponse);
    } else {
      attempt_failed(read_failure(attempt_.progress(), false, conn->stream().error()));
    }
    return;
  }
}

// Parses what arrived; false when the exchange ended.
bool H2Stream::on_upstream_data() {
  if (!attempt_.resp_head_done) {
    const HeadStep head = feed_response_head(attempt_, response_, upstream_in_);
    if (head.kind == HeadStep::Kind::NeedMore) return true;
    if (head.kind == HeadStep::Kind::Bad) {
      attempt_failed({Cause::BadResponse, false});
      return false;
    }
    if (!on_response_head(head.head_len)) return false;
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
  H2Session::HeadScratch& scratch = session_.head_scratch();
  const H2ResponseHead& head = scratch.head;
  if (!translate_response_head({upstream_in_.data(), head_len}, attempt_.backend->name(),
                               scratch.head)) {
    attempt_failed({Cause::BadResponse, false});  // a 101 nobody can be switched to, or garbage
    return false;
  }
  const int status = head.status;  // 200 to 999: three digits
  const bool bodiless = req_.is_head || status == 204 || status == 304;
  char status_text[4];
  const char* status_end = std::to_chars(status_text, status_text + sizeof status_text, status).ptr;
  std::vector<nghttp2_nv>& nv = scratch.nv;
  nv.clear();
  nv.push_back(field(":status", {status_text, static_cast<std::size_t>(status_end - status_text)}));
  for (const H2Field& f : head.fields)
    nv.push_back(field(f.name, f.value));
  submit(status, nv, !bodiless);  // nghttp2 copies the fields
  upstream_in_.consume(head_len);
  attempt_.head_parsed = 0;
  attempt_.resp_head_done = true;
  return true;
}

void H2Stream::response_complete(bool reusable) {
  end_attempt(attempt_, worker_, true);
  release_upstream(may_pool(attempt_, reusable,
                            req_.done && req_.end_queued && attempt_.sent == upstream_out_.size(),
                            !upstream_in_.empty()));
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
  count_failure(attempt_, worker_, {failure, false});
  reset(NGHTTP2_INTERNAL_ERROR);
}

void H2Stream::attempt_failed(Failure failure) {
  release_upstream(false);
  const Verdict verdict = settle_failure(attempt_, worker_, failure, req_.retry, tried_);
  if (verdict.next != Next::Reply) {
    dispatch();
    return;
  }
  reply_local(verdict.status, verdict.error,
              verdict.names_backend ? attempt_.backend->name() : std::string_view{});
}

void H2Stream::release_upstream(bool reusable) {
  if (!upstream_) return;
  paused_ = false;
  release_connection(attempt_, upstream_, worker_, reusable);
}

}  // namespace stampede::balancer
