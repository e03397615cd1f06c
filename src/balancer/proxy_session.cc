// ProxySession, client side: reading and parsing requests, local replies, closing.
#include "balancer/proxy_session.h"

#include <arpa/inet.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <limits>

#include "balancer/admin.h"
#include "balancer/h2_session.h"
#include "balancer/head_rewrite.h"
#include "balancer/session_limits.h"
#include "balancer/worker.h"
#include "h2/preface.h"
#include "http/writer.h"
#include "net/socket.h"
#include "tls/errors.h"
#include "tls/stream.h"

namespace stampede::balancer {
namespace {

http::ParserLimits proxy_limits() {
  http::ParserLimits limits;
  limits.max_body_bytes = std::numeric_limits<std::uint64_t>::max();  // backends decide
  return limits;
}

// The peer's IP as text ("127.0.0.1", "::1"), for X-Forwarded-For.
std::string peer_ip(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return "unknown";
  char text[INET6_ADDRSTRLEN] = "unknown";
  if (ss.ss_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&ss)->sin_addr, text, sizeof text);
  } else if (ss.ss_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&ss)->sin6_addr, text, sizeof text);
  }
  return text;
}

std::string_view error_text(int status) {
  switch (status) {
    case 408:
      return "request timeout";
    case 413:
      return "body too large";
    case 414:
      return "target too long";
    case 431:
      return "header too large";
    case 501:
      return "not implemented";
    case 505:
      return "http version not supported";
    default:
      return "bad request";
  }
}

}  // namespace

ProxySession::ProxySession(Worker& worker, std::unique_ptr<net::Stream> client, bool admin_only,
                           const tls::Stream* secure)
    : worker_(worker),
      client_(std::move(client)),
      secure_(secure),
      client_ip_(peer_ip(client_->fd())),
      proto_(secure != nullptr ? "https" : "http"),
      phase_(secure != nullptr ? Phase::Handshake : Phase::Head),
      admin_only_(admin_only),
      request_(proxy_limits()),
      sniffed_(admin_only) {
  tried_.reserve(worker_.backends().size());
}

ProxySession::~ProxySession() {
  cancel_attempt(attempt_);
  if (phase_ != Phase::Closed) worker_.loop().remove(client_->fd());
}

Expected<void> ProxySession::start() {
  deadline_ns_ = worker_.loop().now_ns() + ns(worker_.config().client_timeout);
  // Edge-triggered for the whole connection: bytes already queued are reported by the add.
  return worker_.loop().add(client_->fd(), EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, this);
}

void ProxySession::on_events(std::uint32_t events) {
  if (phase_ == Phase::Closed) return;
  if (phase_ == Phase::H2) {
    h2_->on_events(events);
    return;
  }
  if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) client_closed_ = true;
  if (phase_ == Phase::Handshake) {
    advance_handshake();
    return;
  }
  if (phase_ == Phase::Tunnel) {
    // EPOLLOUT also resumes a read that waited for the stream to send (TLS WANT_WRITE).
    if ((events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) ||
        ((events & EPOLLOUT) && client_->wants_write())) {
      client_readable_ = true;
    }
    tunnel_step();
    return;
  }
  // A reset (or a full shutdown) while a request is in progress: nobody is left to answer.
  if ((events & (EPOLLHUP | EPOLLERR)) && phase_ == Phase::Forward) {
    close();
    return;
  }
  bool readable = events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR);
  if (events & EPOLLOUT) {
    // A read that stopped for the stream to send (TLS WANT_WRITE) goes on now.
    readable = readable || client_read_wants_out_;
    client_read_wants_out_ = false;
    flush_client();
    if (phase_ == Phase::Closed) return;
  }
  if (readable) {
    client_readable_ = true;
    drive_client();
  }
}

// Processes buffered input and reads while the state wants input. Re-entrant calls (an
// exchange that finished while this is on the stack) ask for another round instead of nesting.
void ProxySession::drive_client() {
  if (driving_) {
    redrive_ = true;
    return;
  }
  driving_ = true;
  do {
    redrive_ = false;
    process_client_input();
    if (phase_ == Phase::Closed) break;
    read_client();
  } while (redrive_ && phase_ != Phase::Closed);
  driving_ = false;
}

bool ProxySession::want_client_input() const {
  if (close_after_flush_ || client_eof_ || phase_ == Phase::Closed || phase_ == Phase::H2 ||
      phase_ == Phase::Handshake) {
    return false;
  }
  if (phase_ == Phase::Head) return true;
  if (req_.done) return false;  // the next (pipelined) request waits for this response
  return req_.local || upstream_out_.size() - attempt_.sent < kMaxPendingBytes;
}

void ProxySession::read_client() {
  while (client_readable_ && want_client_input()) {
    char* p = client_in_.tail(kReadChunk);
    const std::size_t room = client_in_.tail_room();
    std::size_t n = 0;
    auto status = client_->read(p, room, n);
    if (status == net::IoStatus::Done) {
      client_in_.commit(n);
      // A short read drains the socket, unless a FIN came with the data: read on to the EOF,
      // since edge-triggered epoll will not report it again.
      if (n < room && !client_closed_) client_readable_ = false;
      touch();
      process_client_input();
      continue;
    }
    client_readable_ = false;
    if (status == net::IoStatus::WouldBlock) {
      client_read_wants_out_ = client_->wants_write();
      return;
    }
    if (status == net::IoStatus::Eof) {
      client_eof_ = true;
      on_client_eof();
      return;
    }
    close();
    return;
  }
}

void ProxySession::process_client_input() {
  // After a last request (Connection: close, an error) the bytes that follow are not parsed.
  if (close_after_flush_ || phase_ == Phase::Closed || phase_ == Phase::H2) return;
  if (!sniffed_ && !sniff()) return;
  if (phase_ == Phase::Head && !feed_head()) return;
  if (phase_ == Phase::Forward && !req_.done) feed_body();
}

// Feeds head bytes; true once a head completed and the request began.
bool ProxySession::feed_head() {
  if (client_in_.empty()) return false;
  if (!head_started_) {
    head_started_ = true;
    head_deadline_ns_ = worker_.loop().now_ns() + ns(worker_.config().header_timeout);
    deadline_ns_ = head_deadline_ns_;
  }
  http::Step step = request_.feed(client_in_.data(), client_in_.size());
  client_in_.consume(step.consumed);
  if (step.event == http::Event::Error) {
    int status = request_.error().status;
    reply_local(status, error_text(status), {});
    return false;
  }
  if (step.event != http::Event::HeadComplete) return false;
  begin_request();
  return phase_ == Phase::Forward;
}

// Feeds body bytes (and, for a bodiless request, the empty remainder that completes it).
// Only bytes the parser accepted are queued upstream: a malformed body never leaves.
void ProxySession::feed_body() {
  if (!req_.local && upstream_out_.size() - attempt_.sent >= kMaxPendingBytes) return;
  http::Step step = request_.feed(client_in_.data(), client_in_.size());
  if (step.event == http::Event::Error) {
    if (attempt_.active) {
      cancel_attempt(attempt_);  // the client's fault: not counted against the backend
      release_upstream(false);
    }
    if (attempt_.resp_head_done) {
      close();
    } else {
      reply_local(request_.error().status, error_text(request_.error().status), {});
    }
    return;
  }
  if (!req_.local) upstream_out_.append(client_in_.data(), step.consumed);
  client_in_.consume(step.consumed);
  if (step.event == http::Event::MessageComplete) req_.done = true;
  if (req_.local) {
    if (req_.done) reply_admin();
  } else if (!req_.dispatched) {
    dispatch();
  } else {
    flush_upstream();
  }
}

void ProxySession::begin_request() {
  const BalancerConfig& config = worker_.config();
  const std::string_view method = request_.method();
  phase_ = Phase::Forward;
  head_started_ = false;
  req_ = RequestState{.local = admin_only_ || is_admin_request(),
                      .keep_alive = request_.keep_alive(),
                      .is_head = method == "HEAD",
                      .http10 = request_.http_minor() == 0,
                      .upgrade = request_.upgrade() && method != "CONNECT" &&
                                 is_websocket_upgrade(request_.headers()),
                      .retry = {.idempotent = method == "GET" || method == "HEAD",
                                .resendable = is_idempotent(method),
                                .retries_left = config.retries}};
  reset_attempt();
  tried_.clear();
  touch();
  if (req_.local) return;
  if (request_.method() == "CONNECT") {
    reply_local(501, error_text(501), {});
    return;
  }
  session_key_.clear();
  if (config.strategy == Strategy::Sticky) {
    if (auto key = request_.header(config.sticky_header)) session_key_.assign(*key);
  }
  const bool answer_continue = request_.expect_continue() && !req_.http10;
  upstream_out_.clear();
  if (!append_request_head(
          upstream_out_,
          RequestHeadInput{request_.method(), request_.target(), request_.headers(), client_ip_,
                           proto_, answer_continue, req_.upgrade, req_.http10})) {
    reply_local(400, error_text(400), {});  // Connection names too many options
    return;
  }
  if (answer_continue) {
    client_out_.append("HTTP/1.1 100 Continue\r\n\r\n");
    flush_client();
  }
}

bool ProxySession::is_admin_request() const {
  if (!worker_.config().admin_listen.empty()) return false;
  if (request_.method() != "GET" && request_.method() != "HEAD") return false;
  return request_.path() == "/lb-stats" || request_.path() == "/metrics";
}

// A half-close after a complete request is answered, then the connection closes (as HAProxy
// and nginx do); a response still queued is delivered first. A close anywhere else (mid-head,
// mid-body) aborts: close() cancels the attempt, which counts nothing against the backend.
void ProxySession::on_client_eof() {
  if ((phase_ == Phase::Forward && req_.done) || (phase_ == Phase::Head && !client_out_.empty())) {
    close_after_flush_ = true;
    return;
  }
  close();
}

void ProxySession::flush_client() {
  while (!client_out_.empty()) {
    std::size_t n = 0;
    auto status = client_->write(client_out_.data(), client_out_.size(), n);
    if (status == net::IoStatus::WouldBlock) break;
    if (status != net::IoStatus::Done) {
      close();
      return;
    }
    const bool partial = n < client_out_.size();
    client_out_.consume(n);
    client_written_ += n;
    touch();
    if (partial) break;  // the socket is full: EPOLLOUT says when to go on
  }
  if (client_out_.empty() && close_after_flush_ && phase_ == Phase::Head) {
    close();
    return;
  }
  if (phase_ == Phase::Forward && attempt_.upstream_readable &&
      client_out_.size() < kMaxPendingBytes) {
    read_upstream();
  }
}

// A response made by the balancer: errors ({"error": "..."}) and the admin endpoints.
void ProxySession::reply_local(int status, std::string_view error, std::string_view backend) {
  worker_.local_replies().count(status);
  std::string body = "{\"error\":\"" + std::string(error) + "\"}";
  const bool keep = phase_ == Phase::Forward && req_.done && req_.keep_alive && !client_eof_ &&
                    !close_after_flush_;
  http::Header headers[2] = {{"Content-Type", "application/json"}, {"x-backend", backend}};
  std::string head;
  http::append_response_head(head, status, std::span(headers, backend.empty() ? 1 : 2), body.size(),
                             http::persistence_for(keep, req_.http10));
  client_out_.append(head);
  if (!req_.is_head || phase_ == Phase::Head) client_out_.append(body);
  if (!keep) close_after_flush_ = true;
  finish_exchange();
}

void ProxySession::reply_admin() {
  std::string_view path = request_.path();
  std::string body;
  std::string_view type = "application/json";
  int status = 200;
  if (path == "/lb-stats") {
    body = render_stats_json(worker_.fleet(), worker_.loop().now_ns());
  } else if (path == "/metrics") {
    body = render_metrics(worker_.fleet(), worker_.loop().now_ns());
    type = "text/plain; version=0.0.4";
  } else {
    status = 404;
    body = "{\"error\":\"not found\"}";
  }
  const bool keep = req_.keep_alive && !client_eof_;
  http::Header headers[1] = {{"Content-Type", type}};
  std::string head;
  http::append_response_head(head, status, headers, body.size(),
                             http::persistence_for(keep, req_.http10));
  client_out_.append(head);
  if (!req_.is_head) client_out_.append(body);
  if (!keep) close_after_flush_ = true;
  finish_exchange();
}

// The response to the current request is queued: go back to reading the next one.
void ProxySession::finish_exchange() {
  phase_ = Phase::Head;
  req_ = RequestState{};
  head_started_ = false;
  touch();
  flush_client();
  if (phase_ == Phase::Closed || close_after_flush_) return;
  drive_client();
}

// Compares the connection's first bytes with the HTTP/2 client preface; at a match the
// connection becomes an H2Session with every byte read so far.
bool ProxySession::sniff() {
  switch (h2::match_preface(client_in_.view())) {
    case h2::PrefaceMatch::Mismatch:
      sniffed_ = true;
      return true;
    case h2::PrefaceMatch::Partial:
      if (client_eof_) sniffed_ = true;  // cut short: HTTP/1.1's parser says what is wrong
      return sniffed_;
    case h2::PrefaceMatch::Complete:
      break;
  }
  sniffed_ = true;
  const std::string input(client_in_.view());
  client_in_.clear();
  enter_h2(input);
  return false;
}

// `input`: what was read of the connection so far (the preface, or nothing after ALPN h2, when
// nghttp2 checks the preface itself).
void ProxySession::enter_h2(std::string_view input) {
  phase_ = Phase::H2;
  h2_ = std::make_unique<H2Session>(worker_, *this, *client_, client_ip_, proto_);
  h2_->start(H2Start{input, client_readable_, client_closed_, client_eof_});
}

// Driven by readiness (tls::Stream::handshake never blocks); the deadline set at start() is
// not moved by handshake bytes, so a handshake must end within --client-timeout of the accept.
void ProxySession::advance_handshake() {
  switch (client_->handshake()) {
    case net::IoStatus::WouldBlock:
      return;  // the next readiness event goes on
    case net::IoStatus::Done:
      break;
    default:
      fail_handshake(client_->error());
      return;
  }
  worker_.count_handshake(HandshakeEnd::Done);
  // The last flight may have brought request bytes (read-ahead holds them): read at once.
  client_readable_ = true;
  sniffed_ = true;  // over TLS only ALPN selects HTTP/2 (RFC 9113 3.3): no preface sniffing
  if (secure_->alpn() == "h2") {
    enter_h2({});
    return;
  }
  phase_ = Phase::Head;
  touch();
  drive_client();
}

// `error`: the stream's error(): a tls/errors.h code is a TLS failure, an errno the client
// going away.
void ProxySession::fail_handshake(int error) {
  worker_.count_handshake(tls::error_name(error) ? HandshakeEnd::Error : HandshakeEnd::Closed);
  close();
}

void ProxySession::close() {
  if (phase_ == Phase::Closed) return;
  if (h2_) h2_->shutdown();
  cancel_attempt(attempt_);
  release_upstream(false);
  worker_.loop().remove(client_->fd());
  phase_ = Phase::Closed;
  worker_.close_session(this);
}

// Moves the deadline: what the session waits for now decides which timeout applies.
void ProxySession::touch() {
  const BalancerConfig& c = worker_.config();
  const std::int64_t now = worker_.loop().now_ns();
  if (phase_ == Phase::Head) {
    deadline_ns_ = head_started_ ? head_deadline_ns_ : now + ns(c.client_timeout);
  } else if (phase_ == Phase::Tunnel) {
    deadline_ns_ = now + ns(c.client_timeout);
  } else if (upstream_ && upstream_->connecting()) {
    deadline_ns_ = attempt_.start_ns + ns(c.connect_timeout);
  } else if (!req_.done) {
    deadline_ns_ =
        now + ns(req_.local ? c.client_timeout : std::min(c.client_timeout, c.backend_timeout));
  } else {
    deadline_ns_ = now + ns(c.backend_timeout);
  }
}

void ProxySession::on_tick(std::int64_t now_ns) {
  if (phase_ == Phase::H2) {
    h2_->on_tick(now_ns);
    return;
  }
  if (phase_ == Phase::Closed || now_ns < deadline_ns_) return;
  if (phase_ == Phase::Handshake) {
    worker_.count_handshake(HandshakeEnd::Timeout);
    close();
    return;
  }
  if (phase_ == Phase::Tunnel) {
    close();  // idle both ways for the client timeout
    return;
  }
  if (phase_ == Phase::Head) {
    if (head_started_ && !close_after_flush_) {
      reply_local(408, error_text(408), {});
    } else {
      close();
    }
    return;
  }
  if (upstream_ && upstream_->connecting()) {
    attempt_failed({Cause::Connect, true});
  } else if (req_.local || !req_.done || !attempt_.active) {
    close();  // a client stalled mid-body: the attempt is cancelled, not the backend's failure
  } else if (attempt_.resp_head_done) {
    response_failed(Cause::Timeout);  // a backend stalled mid-response
  } else {
    attempt_failed({Cause::Timeout, false});
  }
}

}  // namespace stampede::balancer
