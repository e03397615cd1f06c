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
  std::string key;
  if (worker_.config().strategy == Strategy::Sticky)
    key.assign(fields_.value(worker_.config().sticky_header));
  if (Backend* backend = pick_backend(key)) start_attempt(backend);
}

void H2Stream::on_upstream_events(std::uint32_t events) {
  session_.upstream_entry(*this, events);
}

void H2Stream::handle_upstream_events(std::uint32_t events) {
  if (!upstream_ || req_.closed) return;
  forward_upstream_events(events);
}

void H2Stream::flush_upstream() {
  if (!write_upstream()) return;
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
    if (read_step(*conn) != ReadStep::More) return;
  }
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
  response_head_taken(head_len);
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

void H2Stream::release_upstream(bool reusable) {
  if (!upstream_) return;
  paused_ = false;
  release_connection(attempt_, upstream_, worker_, reusable);
}

}  // namespace stampede::balancer
