// H2Stream, the request side: the head, local answers, the body, the response's submission.
#include "balancer/h2_stream.h"

#include <fmt/format.h>

#include <cstring>

#include "balancer/admin.h"
#include "balancer/h2_session.h"
#include "balancer/session_limits.h"
#include "balancer/worker.h"

namespace stampede::balancer {

H2Stream::H2Stream(H2Session& session, Worker& worker, std::int32_t id)
    : session_(session),
      worker_(worker),
      id_(id),
      upstream_in_(session.lend_buffer()),
      upstream_out_(session.lend_buffer()),
      body_(session.lend_buffer()) {
  response_.set_body_callback([this](std::string_view bytes) {
    body_.append(bytes);
    body_grew();
  });
  deadline_ns_ = worker_.loop().now_ns() + ns(worker_.config().header_timeout);
}

H2Stream::~H2Stream() {
  cancel_attempt(attempt_);
  session_.give_back(std::move(upstream_in_));
  session_.give_back(std::move(upstream_out_));
  session_.give_back(std::move(body_));
}

void H2Stream::on_request_head(bool ends_stream) {
  const std::string_view method = fields_.method();
  req_.head_done = true;
  req_.done = ends_stream;
  req_.is_head = method == "HEAD";
  req_.retry = {.idempotent = method == "GET" || method == "HEAD",
                .resendable = is_idempotent(method),
                .retries_left = worker_.config().retries};
  // Without content-length a body's end is END_STREAM, which HTTP/1.1 says with chunks.
  req_.chunked = !ends_stream && !fields_.has("content-length");
  fields_.append_head(upstream_out_, session_.client_ip(), session_.proto(), req_.chunked);
  req_.end_queued = ends_stream;
  touch();
}

void H2Stream::on_body(const std::uint8_t* data, std::size_t length) {
  if (req_.answered && !attempt_.active) {
    session_.consume(id_, length);  // answered already (locally, or early): not wanted
    return;
  }
  if (length == 0) return;
  if (req_.chunked) {
    char size[24];
    upstream_out_.append(size, fmt::format_to_n(size, sizeof size, "{:x}\r\n", length).size);
  }
  upstream_out_.append(reinterpret_cast<const char*>(data), length);
  if (req_.chunked) upstream_out_.append("\r\n");
  window_owed_ += length;
  touch();
}

void H2Stream::on_request_end() {
  req_.done = true;
  if (!req_.end_queued && req_.chunked) upstream_out_.append("0\r\n\r\n");
  req_.end_queued = true;
  touch();
}

void H2Stream::on_closed() {
  req_.closed = true;
  cancel_attempt(attempt_);  // the client went away: an abort, not the backend's failure
  release_upstream(false);
}

void H2Stream::service() {
  if (req_.closed || !req_.head_done) return;
  if (!req_.dispatched && !req_.answered) {
    req_.dispatched = true;
    if (fields_.method() == "CONNECT") {
      reply_local(501, "not implemented", {});
    } else if (is_admin_request()) {
      reply_admin();
    } else {
      dispatch();
    }
    return;
  }
  if (attempt_.active) flush_upstream();
  if (req_.answered && !attempt_.active) {
    session_.consume(id_, window_owed_);
    window_owed_ = 0;
  }
}

bool H2Stream::is_admin_request() const {
  if (!worker_.config().admin_listen.empty()) return false;
  const std::string_view method = fields_.method();
  if (method != "GET" && method != "HEAD") return false;
  std::string_view path = fields_.path();
  path = path.substr(0, path.find('?'));
  return path == "/lb-stats" || path == "/metrics";
}

void H2Stream::reply_admin() {
  std::string_view path = fields_.path();
  path = path.substr(0, path.find('?'));
  std::string_view type = "application/json";
  if (path == "/lb-stats") {
    const std::string text = render_stats_json(worker_.fleet(), worker_.loop().now_ns());
    body_.append(text);
  } else {
    const std::string text = render_metrics(worker_.fleet(), worker_.loop().now_ns());
    body_.append(text);
    type = "text/plain; version=0.0.4";
  }
  char length[24];
  const std::string_view length_view(
      length, fmt::format_to_n(length, sizeof length, "{}", body_.size()).size);
  const nghttp2_nv nv[3] = {field(":status", "200"), field("content-type", type),
                            field("content-length", length_view)};
  if (req_.is_head) body_.clear();
  body_done_ = true;
  submit(200, nv, !req_.is_head);
}

// A response made by the balancer: {"error": "..."} with x-backend when a backend was tried.
void H2Stream::reply_local(int status, std::string_view error, std::string_view backend) {
  worker_.local_replies().count(status);
  body_.clear();
  body_.append("{\"error\":\"");
  body_.append(error);
  body_.append("\"}");
  char status_text[8];
  char length[24];
  const std::string_view status_view(
      status_text, fmt::format_to_n(status_text, sizeof status_text, "{}", status).size);
  const std::string_view length_view(
      length, fmt::format_to_n(length, sizeof length, "{}", body_.size()).size);
  nghttp2_nv nv[4] = {field(":status", status_view), field("content-type", "application/json"),
                      field("content-length", length_view), field("x-backend", backend)};
  if (req_.is_head) body_.clear();
  body_done_ = true;
  submit(status, std::span(nv, backend.empty() ? 3 : 4), !req_.is_head);
}

// Submits the response HEADERS; `body`: DATA follows from body_ (the data provider).
void H2Stream::submit(int status, std::span<const nghttp2_nv> fields, bool body) {
  (void)status;
  req_.answered = true;
  nghttp2_data_provider provider{};
  provider.source.ptr = this;
  provider.read_callback = read_body;
  if (nghttp2_submit_response(session_.session(), id_, fields.data(), fields.size(),
                              body ? &provider : nullptr) != 0) {
    reset(NGHTTP2_INTERNAL_ERROR);
  }
  session_.consume(id_, window_owed_);
  window_owed_ = 0;
  touch();
}

void H2Stream::reset(std::uint32_t error_code) {
  if (req_.closed) return;
  cancel_attempt(attempt_);
  release_upstream(false);
  req_.answered = true;
  nghttp2_submit_rst_stream(session_.session(), NGHTTP2_FLAG_NONE, id_, error_code);
}

ssize_t H2Stream::read_body(nghttp2_session*, std::int32_t, std::uint8_t* buffer,
                            std::size_t length, std::uint32_t* flags, nghttp2_data_source* source,
                            void*) {
  H2Stream& x = *static_cast<H2Stream*>(source->ptr);
  const std::size_t n = std::min(length, x.body_.size());
  if (n > 0) std::memcpy(buffer, x.body_.data(), n);
  x.body_.consume(n);
  if (x.body_.empty() && x.body_done_) {
    *flags |= NGHTTP2_DATA_FLAG_EOF;
  } else if (n == 0) {
    x.deferred_ = true;
    return NGHTTP2_ERR_DEFERRED;
  }
  if (x.paused_ && x.body_.size() < kStreamBuffer / 2) {
    x.paused_ = false;
    x.session_.want_pump(x.id_);
  }
  if (n > 0) x.touch();
  return static_cast<ssize_t>(n);
}

// New response bytes (or the response's end) for a provider that said DEFERRED.
void H2Stream::body_grew() {
  if (!deferred_ || !req_.answered || req_.closed) return;
  deferred_ = false;
  nghttp2_session_resume_data(session_.session(), id_);
}

// The deadline for what the stream waits for now; the sweep calls on_tick().
void H2Stream::touch() {
  const BalancerConfig& c = worker_.config();
  const std::int64_t now = worker_.loop().now_ns();
  if (!req_.head_done) return;  // the header timeout set at the start
  if (upstream_ && upstream_->connecting()) {
    deadline_ns_ = attempt_.start_ns + ns(c.connect_timeout);
  } else if (!req_.done) {
    deadline_ns_ = now + ns(attempt_.active ? std::min(c.client_timeout, c.backend_timeout)
                                            : c.client_timeout);
  } else if (attempt_.active && !paused_) {
    deadline_ns_ = now + ns(c.backend_timeout);
  } else {
    deadline_ns_ = now + ns(c.client_timeout);  // the client's window holds the rest
  }
}

void H2Stream::on_tick(std::int64_t now_ns) {
  if (req_.closed || now_ns < deadline_ns_) return;
  if (!req_.head_done) {
    reset(NGHTTP2_CANCEL);  // HEADERS without END_HEADERS: CONTINUATIONs that never came
  } else if (upstream_ && upstream_->connecting()) {
    attempt_failed({Cause::Connect, true});
  } else if (!req_.done || !attempt_.active || paused_) {
    reset(NGHTTP2_CANCEL);  // the client stalled (mid-body, or with its window closed)
  } else if (attempt_.resp_head_done) {
    response_failed(Cause::Timeout);
  } else {
    attempt_failed({Cause::Timeout, false});
  }
}

}  // namespace stampede::balancer
