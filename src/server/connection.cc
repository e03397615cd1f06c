#include "server/connection.h"
#include "server/deadline.h"
#include "server/metrics.h"

#include <sys/epoll.h>

#include "core/clock.h"
#include "h2/preface.h"
#include "server/worker.h"
#include "ws/handshake.h"

namespace stampede::server {
namespace {

// How long to keep discarding a refused client's input so our answer is not lost to a reset.
constexpr std::int64_t kLingerNs = 2'000'000'000;
// Buffers grown past this are freed once empty, so one large answer does not pin memory.
constexpr std::size_t kKeepCapacity = 64 * 1024;
constexpr std::size_t kKeepScratchCapacity = 1024 * 1024;

http::ParserLimits limits_of(const ServerOptions& o) {
  return {o.max_header_bytes, o.max_uri_bytes, o.max_body_bytes};
}

void clear_buffer(std::string& s, std::size_t keep = kKeepCapacity) {
  if (s.capacity() > keep) {
    std::string().swap(s);
  } else {
    s.clear();
  }
}

}  // namespace

Connection::Connection(Worker& worker)
    : worker_(worker),
      parser_(limits_of(worker.options())),
      delay_timer_([this] { on_delay(); }),
      deadline_timer_([this] { on_deadline(); }) {}

bool Connection::open(std::unique_ptr<net::Stream> stream) {
  stream_ = std::move(stream);
  sniffed_ = !worker_.options().http2;  // --no-http2: every connection is HTTP/1.1 from byte 0
  const std::int64_t now = worker_.loop().now_ns();
  phase_start_ns_ = last_activity_ns_ = now;
  if (!worker_.loop().add(fd(), EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, this)) return false;
  arm_deadline();
  return true;
}

void Connection::release() {
  if (websocket_) ws_->release();
  if (http2_) h2_->release();
  websocket_ = upgrade_pending_ = false;
  http2_ = h2_pending_ = sniffed_ = false;
  worker_.loop().cancel(delay_timer_);
  worker_.loop().cancel(deadline_timer_);
  stream_.reset();
  parser_.reset();
  clear_buffer(in_);
  clear_buffer(out_);
  out_sent_ = 0;
  request_ = Request{};
  phase_ = Phase::Idle;
  requests_ = 0;
  ++generation_;
  answered_in_batch_ = 0;
  batch_offsets_ns_ = 0;
  input_ = SocketInput{};
  closing_ = linger_ = lingering_ = draining_ = false;
}

void Connection::drain() {
  draining_ = true;
  if (websocket_) {
    ws_->drain();
    return;
  }
  if (http2_) {
    h2_->drain();
    return;
  }
  if (phase_ == Phase::Idle && in_.empty() && out_.empty() && !closing_) {
    close_now();
  }
}

void Connection::on_events(std::uint32_t events) {
  if (websocket_) {
    ws_->on_events(events);
    return;
  }
  if (http2_) {
    h2_->on_events(events);
    return;
  }
  if (!input_.on_events(events)) {
    close_now();
    return;
  }
  advance();
}

// Makes every bit of progress possible now: answers buffered requests, reads what the socket
// holds, writes the answers. Returns with the connection closed, or waiting for an event or a
// timer.
void Connection::advance() {
  for (int reads = 0;; ++reads) {
    drain_input();
    if (output_full()) {
      if (!flush()) return;
      if (output_full()) break;
      continue;
    }
    if (blocked() || !input_.unread) break;
    if (reads == kReadsPerActivation) {
      // Edge-triggered: no new event will come for bytes already there, so come back later.
      worker_.loop().defer([this, generation = generation_] {
        if (generation == generation_) advance();
      });
      break;
    }
    if (!read_once()) return;
  }
  if (upgrade_pending_) {
    start_websocket();
    return;
  }
  if (h2_pending_) {
    start_h2();
    return;
  }
  if (!flush()) return;
  finish_up();
}

// Parses what an earlier pause left in in_.
void Connection::drain_input() {
  if (in_.empty() || blocked() || !sniffed_) return;
  const std::size_t used = parse(in_.data(), in_.size());
  if (closing_) {
    in_.clear();
  } else {
    in_.erase(0, used);
  }
}

// One read into the worker's buffer, parsed in place. False when the connection was closed.
bool Connection::read_once() {
  char* data = worker_.scratch_in();
  std::size_t n = 0;
  const net::IoStatus status = input_.read(*stream_, data, worker_.scratch_in_size(), n);
  if (status == net::IoStatus::Error) {
    close_now();
    return false;
  }
  if (status != net::IoStatus::Done) return true;
  last_activity_ns_ = worker_.loop().now_ns();
  if (lingering_) return true;
  if (!sniffed_) {
    const bool kept = !in_.empty();
    // Parsed from in_ by drain_input() when the first bytes had to be kept.
    if (!sniff(data, n) || kept) return true;
  }
  const std::size_t used = parse(data, n);
  if (used < n && !closing_) in_.append(data + used, n - used);
  return true;
}

// Feeds the parser until the input is used up or parsing must pause. Returns the bytes used.
std::size_t Connection::parse(const char* data, std::size_t length) {
  std::size_t used = 0;
  while (!blocked()) {
    const http::Step step = parser_.feed(data + used, length - used);
    used += step.consumed;
    switch (step.event) {
      case http::Event::NeedMore:
        if (step.consumed > 0 && phase_ == Phase::Idle) {
          phase_ = Phase::Head;
          if (requests_ > 0) phase_start_ns_ = worker_.loop().now_ns();
        }
        return used;
      case http::Event::HeadComplete:
        on_head();
        break;
      case http::Event::MessageComplete:
        on_message();
        break;
      case http::Event::Error:
        refuse(parser_.error().status, parser_.error().message);
        return length;
    }
  }
  return used;
}

void Connection::on_head() {
  phase_ = Phase::Body;
  request_ = Request{};
  request_.head_only = parser_.method() == "HEAD";
  request_.http10 = parser_.http_minor() == 0;
  // path() and query() would each look for the '?': once here.
  const std::string_view target = parser_.target();
  const std::size_t q = target.find('?');
  request_.target = read_target(
      target.substr(0, q), q == std::string_view::npos ? std::string_view() : target.substr(q + 1));
  const bool has_body = parser_.chunked() || parser_.content_length().value_or(0) > 0;
  if (parser_.expect_continue() && has_body) Responses::append_continue(out());
}

// A request is complete: count it, decide its answer, answer now or after its delay.
void Connection::on_message() {
  phase_ = Phase::Idle;
  ++requests_;
  Request& r = request_;
  r.keep_alive = parser_.keep_alive() && !r.target.overrides.close;
  r.completed_ns = worker_.loop().now_ns();
  if (r.target.kind != Kind::Normal || !r.target.bad_override.empty()) {
    answer();
    return;
  }
  // Upgrade: websocket is answered as a handshake, with 400 when Connection: upgrade is missing
  // (RFC 6455 4.2.1), rather than as a plain GET the client would take for a refusal it
  // cannot explain.
  if (!r.target.overrides.status && ws::wants_websocket(parser_)) {
    accept_websocket();
    return;
  }
  r.decision = decide(r.target, worker_);
  if (r.decision.delay_ns > 0) {
    phase_ = Phase::Delayed;
    worker_.loop().schedule(delay_timer_, r.completed_ns + r.decision.delay_ns);
    return;
  }
  answer();
}

void Connection::answer() {
  const bool keep_alive = request_.keep_alive && !draining_;
  std::string& o = out();
  const Responses& responses = worker_.responses();
  const Framing framing{http::persistence_for(keep_alive, request_.http10), request_.head_only};
  switch (request_.target.kind) {
    case Kind::Count:
      responses.append_count(o, worker_.shared().served(), framing);
      break;
    case Kind::Reset:
      worker_.shared().reset_served();
      responses.append_count(o, worker_.shared().served(), framing);
      break;
    case Kind::Metrics:
      responses.append_exposition(o, render_metrics(worker_.shared()), framing);
      break;
    case Kind::Normal:
      answer_normal(o, framing);
      break;
  }
  if (!keep_alive) closing_ = true;
}

void Connection::answer_normal(std::string& buffer, Framing framing) {
  const Request& r = request_;
  const Responses& responses = worker_.responses();
  const Overrides& overrides = r.target.overrides;
  if (!r.target.bad_override.empty()) {
    WorkerCounters::add(worker_.counters().bad_requests, std::uint64_t{1});
    responses.append_text(buffer, 400, r.target.bad_override, framing);
    return;
  }
  if (overrides.status || overrides.size) {
    responses.append_custom(buffer, {r.decision.status, overrides.size}, framing);
  } else {
    responses.append_canned(buffer, r.decision.canned_error ? Canned::Error : Canned::Ok, framing);
  }
  if (r.decision.status >= 400) WorkerCounters::add(worker_.counters().errors, std::uint64_t{1});
  worker_.counters().count_status(r.decision.status);
  // Start times are summed relative to the batch's first one, so the sum cannot overflow.
  if (answered_in_batch_++ == 0) batch_base_ns_ = r.completed_ns;
  batch_offsets_ns_ += r.completed_ns - batch_base_ns_;
}

// Bad input: answer `status`, stop parsing, close after a lingering read.
void Connection::refuse(int status, std::string_view message) {
  WorkerCounters::add(worker_.counters().bad_requests, std::uint64_t{1});
  worker_.responses().append_text(out(), status, message, Framing{http::Persistence::Close, false});
  closing_ = linger_ = true;
  phase_ = Phase::Idle;
}

// Writes the pending output in one call; keeps what the socket did not take. False when the
// connection was closed.
bool Connection::flush() {
  std::string& scratch = worker_.scratch_out();
  const bool own = !out_.empty();
  const std::string& pending = own ? out_ : scratch;
  const std::size_t offset = own ? out_sent_ : 0;
  if (pending.size() == offset) return true;
  std::size_t n = 0;
  const net::IoStatus status = stream_->write(pending.data() + offset, pending.size() - offset, n);
  if (status == net::IoStatus::Error) {
    close_now();
    return false;
  }
  if (status != net::IoStatus::Done) n = 0;
  if (n > 0) {
    last_activity_ns_ = worker_.loop().now_ns();
    WorkerCounters::add(worker_.counters().bytes_written, std::uint64_t{n});
  }
  if (answered_in_batch_ > 0) {
    // Service time: from when each request was complete to when its answer left.
    const std::int64_t since_base = mono_ns() - batch_base_ns_;
    WorkerCounters::add(worker_.counters().service_ns,
                        since_base * answered_in_batch_ - batch_offsets_ns_);
    answered_in_batch_ = 0;
    batch_offsets_ns_ = 0;
  }
  if (own) {
    out_sent_ += n;
    if (out_sent_ == out_.size()) {
      clear_buffer(out_);
      out_sent_ = 0;
    }
  } else {
    if (n < scratch.size()) out_.assign(scratch, n);
    clear_buffer(scratch, kKeepScratchCapacity);
  }
  return true;
}

// After an activation: close when done, else make sure a timer will come back.
void Connection::finish_up() {
  if (input_.eof && !sniffed_) {
    sniffed_ = true;  // a preface cut short: HTTP/1.1's parser says what is wrong with it
    drain_input();
  }
  if (input_.eof && !closing_ && phase_ != Phase::Delayed && in_.empty()) {
    // Nothing more will come: a request cut short gets its 400, then the connection closes.
    if (parser_.finish().event == http::Event::Error && phase_ != Phase::Idle) {
      refuse(parser_.error().status, parser_.error().message);
    }
    closing_ = true;
    if (!flush()) return;
  }
  if (!out_.empty()) {
    arm_deadline();
    return;
  }
  if (closing_ && !lingering_) {
    if (!linger_ || input_.eof) {
      close_now();
      return;
    }
    start_linger();
    if (input_.unread) {
      advance();
      return;
    }
  }
  if ((lingering_ && input_.eof) || (draining_ && phase_ == Phase::Idle && in_.empty())) {
    close_now();
    return;
  }
  arm_deadline();
}

void Connection::start_linger() {
  stream_->shutdown_write();
  lingering_ = true;
  linger_deadline_ns_ = worker_.loop().now_ns() + kLingerNs;
}

void Connection::close_now() {
  worker_.scratch_out().clear();
  worker_.close(*this);
}

void Connection::on_delay() {
  phase_ = Phase::Idle;
  answer();
  advance();
}

void Connection::on_deadline() {
  if (websocket_ || http2_) return;
  if (!deadline_reached(worker_.loop(), deadline_timer_, deadline())) return;
  if (phase_ == Phase::Head && !closing_) {
    refuse(408, "request head not received in time");
    advance();
    return;
  }
  close_now();
}

void Connection::arm_deadline() {
  arm_deadline_timer(worker_.loop(), deadline_timer_, deadline());
}

// When the connection's current wait runs out: the linger bound, the header timeout for a
// head (or a first request) in progress, else the idle timeout since the last progress.
std::int64_t Connection::deadline() const {
  const ServerOptions& o = worker_.options();
  if (lingering_) return linger_deadline_ns_;
  if (phase_ == Phase::Delayed && out_.empty()) return kNoDeadline;
  if (out_.empty() && (phase_ == Phase::Head || (phase_ == Phase::Idle && requests_ == 0))) {
    return phase_start_ns_ + o.header_timeout.count();
  }
  return last_activity_ns_ + o.idle_timeout.count();
}

std::string& Connection::out() {
  return out_.empty() ? worker_.scratch_out() : out_;
}

bool Connection::output_full() const {
  return out_.size() - out_sent_ > kOutputHighWater ||
         worker_.scratch_out().size() > kOutputHighWater;
}

bool Connection::blocked() const {
  return upgrade_pending_ || h2_pending_ || phase_ == Phase::Delayed || (closing_ && !lingering_) ||
         output_full();
}

// A WebSocket upgrade request is complete: queue the 101 (the switch happens once parsing has
// stopped, in advance()), or refuse a bad handshake with its status and close.
void Connection::accept_websocket() {
  ws::Verdict verdict = ws::check_request(parser_);
  if (verdict.status == 0 && !parser_.upgrade()) {  // llhttp did not stop for the switch
    verdict = {400, "a WebSocket upgrade needs Connection: Upgrade", {}};
  }
  if (verdict.status != 0 || draining_) {
    WorkerCounters::add(worker_.counters().bad_requests, std::uint64_t{1});
    ws::append_refusal(out(),
                       verdict.status != 0 ? verdict : ws::Verdict{503, "server stopping", {}});
    closing_ = linger_ = true;
    return;
  }
  ws::append_accept(out(), verdict.key);
  ws_delay_ns_ = request_.target.overrides.delay_ns.value_or(worker_.options().delay.count());
  upgrade_pending_ = true;
}

// Lends the stream, hands over the unwritten output and the unparsed input to the WebSocket side.
void Connection::start_websocket() {
  WsHandover handover;
  handover.stream = stream_.get();
  if (out_.empty()) {
    handover.output.swap(worker_.scratch_out());
  } else {
    handover.output.assign(out_, out_sent_);
    clear_buffer(out_);
    out_sent_ = 0;
  }
  handover.input.swap(in_);
  handover.delay_ns = ws_delay_ns_;
  handover.socket = input_;
  worker_.loop().cancel(deadline_timer_);
  upgrade_pending_ = false;
  websocket_ = true;
  if (!ws_) ws_ = std::make_unique<WsConnection>(worker_, *this);
  ws_->start(std::move(handover));
}

// Compares the connection's first bytes with the HTTP/2 client preface. True when they go to
// the HTTP/1.1 parser now (`data` itself: nothing was kept before); else they are kept in in_,
// to wait for more or to hand over to HTTP/2.
bool Connection::sniff(const char* data, std::size_t n) {
  std::string_view seen(data, n);
  if (!in_.empty()) {
    in_.append(data, n);
    seen = in_;
  }
  const h2::PrefaceMatch match = h2::match_preface(seen);
  if (match == h2::PrefaceMatch::Mismatch) {
    sniffed_ = true;
    return true;
  }
  if (seen.data() == data) in_.assign(data, n);
  if (match == h2::PrefaceMatch::Complete) sniffed_ = h2_pending_ = true;
  return false;
}

// Lends the stream and hands the bytes read so far to the HTTP/2 side.
void Connection::start_h2() {
  H2Handover handover;
  handover.stream = stream_.get();
  handover.input.swap(in_);
  handover.socket = input_;
  worker_.loop().cancel(deadline_timer_);
  h2_pending_ = false;
  http2_ = true;
  if (!h2_) h2_ = std::make_unique<H2Connection>(worker_, *this);
  h2_->start(std::move(handover));
}

}  // namespace stampede::server
