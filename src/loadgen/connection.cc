#include "loadgen/connection.h"

#include <errno.h>
#include <sys/epoll.h>

#include <algorithm>

#include "core/clock.h"
#include "loadgen/connection_read.h"
#include "loadgen/connector.h"
#include "loadgen/h2_client.h"
#include "loadgen/ws_client.h"
#include "net/poller.h"

namespace stampede::loadgen {
namespace {

// The parser captures the counted headers, then those a hook reads.
std::vector<std::string> parsed_headers(const ConnectionContext& context) {
  std::vector<std::string> names = context.count_headers;
  if (context.hook_set) {
    names.insert(names.end(), context.hook_set->capture_headers.begin(),
                 context.hook_set->capture_headers.end());
  }
  return names;
}

}  // namespace

Connection::Connection(const ConnectionContext& context)
    : Connection(context, context.websocket ? nullptr : make_connector(context)) {}

Connection::Connection(const ConnectionContext& context, std::unique_ptr<net::Connector> connector)
    : context_(context),
      connector_(std::move(connector)),
      parser_(parsed_headers(context)),
      timer_([this] { on_timer(); }),
      flight_(context.pipeline > 1 ? context.pipeline : 0) {
  secure_ = connector_ && connector_->has_handshake();
  secured_ = !secure_;
  if (context.hook_set && context.hook_set->capture_body) {
    parser_.set_body_callback([this](std::string_view chunk) { body_.append(chunk); });
  }
}

Connection::~Connection() = default;

void Connection::start() {
  if (context_.websocket) {
    ws_ = std::make_unique<WsClient>(context_);
    ws_->start();
    return;
  }
  if (context_.h2) {
    h2_ = std::make_unique<H2Client>(context_, *this, std::move(connector_));
    h2_->start();
    return;
  }
  if (context_.pipeline > 1) {
    fill(/*after_busy=*/false);
    return;
  }
  request_next(/*after_busy=*/false);
}

bool Connection::finished() const {
  if (h2_) return h2_->finished();
  return ws_ ? ws_->finished() : state_ == State::Finished;
}

void Connection::stop_sending() {
  if (ws_) {
    ws_->stop_sending();
    return;
  }
  if (h2_) {
    h2_->stop_sending();
    return;
  }
  if (context_.pipeline > 1) {
    // The owner dropped its held permits: the requests in flight are still answered.
    held_ = {};
    no_more_ = true;
    if (flight_.empty() && state_ != State::Finished) finish();
    return;
  }
  switch (state_) {
    case State::Idle:
    case State::Waiting:
    case State::Draining:
      finish();
      break;
    default:
      break;
  }
}

void Connection::request_next(bool after_busy) {
  const SendPermit permit = held_.next(*context_.owner, *this, context_.loop->now_ns(), after_busy);
  if (!permit.send) {
    finish();
  } else if (held_.held) {
    state_ = State::Waiting;
  } else {
    begin(permit);
  }
}

void Connection::send_pending() {
  if (h2_) {
    h2_->send_pending();
    return;
  }
  if (context_.pipeline > 1 && held_.held) {
    held_.due = true;
    if (state_ == State::Waiting) context_.loop->cancel(timer_);  // a backoff: paced by now
    fill(/*after_busy=*/true);  // during a connect or a write: taken when that is done
    return;
  }
  if (state_ != State::Waiting || !held_.held) return;
  begin(held_.take());
}

void Connection::begin(const SendPermit& permit) {
  intended_ns_ = permit.at_ns;
  waited_for_connection_ = permit.waited_for_connection;
  index_ = permit.index;
  // What --log reads of this request (a request that fails early keeps none of the last one's).
  connected_ns_ = start_ns_ = first_byte_ns_ = 0;
  received_ = 0;
  if (context_.hook_set) {
    if (!generate(permit)) return;
  } else if (context_.request->indexed()) {
    context_.request->render(permit.index, rendered_);
    request_ = rendered_;
  } else {
    request_ = context_.request->fixed();
  }
  if (stream_ && peer_closed_) close_socket();  // the server closed the idle connection
  written_ = 0;
  if (context_.head_request || head_) parser_.expect_no_body();
  if (!stream_) {
    open_socket();
    return;
  }
  write_request();
}

// The request begins at now_ns (its connect's start, or its first byte on a reused connection):
// its uncorrected latency counts from here and its send lag ends here, one reading for both, so
// that corrected - uncorrected = lag exactly.
void Connection::mark_begin(std::int64_t now_ns) {
  begin_ns_ = now_ns;
  if (RateStats* rate = context_.stats->rate()) {
    rate->on_sent(intended_ns_, now_ns, waited_for_connection_);
  }
}

// A non-blocking connect; the socket is registered once, for its whole life.
void Connection::open_socket() {
  if (context_.pipeline > 1) {
    begin_ns_ = mono_ns();
    flight_.front().begin_ns = begin_ns_;  // the one request a new socket carries
    if (RateStats* rate = context_.stats->rate()) {
      rate->on_sent(flight_.front().intended_ns, begin_ns_, flight_.front().waited_for_connection);
    }
  } else {
    mark_begin(mono_ns());
  }
  if (context_.log) socket_id_ = context_.log->next_connection();
  bool at_once = false;  // the connect completed in the call
  const int err = connector_->open(*context_.loop, *this, begin_ns_, at_once);
  stream_ = connector_->stream();
  if (err != 0) {
    fail(err);
    return;
  }
  arm_timeout(begin_ns_);
  if (at_once) {
    connected();
    write_request();
  } else {
    state_ = State::Connecting;
  }
}

void Connection::on_events(std::uint32_t events) {
  if (h2_) {  // the H2Client's socket is registered for itself; this is for tests that drive it
    h2_->on_events(events);
    return;
  }
  switch (state_) {
    case State::Connecting:
      if (events & EPOLLIN) readable_ = true;
      on_connect_event();
      break;
    case State::Writing:
      if (events & net::kReadEvents) readable_ = true;
      // A TLS handshake (or CONNECT) in progress waits for either direction.
      if ((events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) || (!secured_ && (events & EPOLLIN))) {
        write_request();
      }
      break;
    case State::Reading:
      // TLS: a read that stopped for want of writability (WANT_WRITE: a key update's answer or
      // an alert to flush) goes on when the socket drains, as in WsClient.
      if ((events & net::kReadEvents) || ((events & EPOLLOUT) && stream_->wants_write())) {
        if (context_.pipeline > 1) {
          read_pipelined(events);
        } else {
          read_response(events);
        }
      }
      break;
    case State::Draining:
      drain(events);
      break;
    case State::Idle:
    case State::Waiting:
      if (events & net::kHangupEvents) peer_closed_ = true;
      break;
    case State::Finished:
      break;
  }
}

void Connection::on_connect_event() {
  const int err = connector_->connect_result();
  if (err != 0) {
    fail(err);
    return;
  }
  connected();
  write_request();
}

// Counted once established, so a refused connect is an error and not a connection.
void Connection::connected() {
  connected_ns_ = connector_->connected_ns();
  context_.stats->add_connection(connected_ns_ - begin_ns_);
}

// The handshake is inside the latency of the request that opened the connection.
bool Connection::secure_handshake() {
  switch (connector_->handshake()) {
    case net::IoStatus::Done:
      secured_ = true;
      if (context_.tls != nullptr) {
        context_.stats->add_tls_handshake(connector_->resumed(),
                                          mono_ns() - connector_->connected_ns());
      }
      return true;
    case net::IoStatus::Error:
      fail(connector_->error());
      return false;
    default:
      state_ = State::Writing;
      return false;
  }
}

void Connection::write_request() {
  if (!secured_ && !secure_handshake()) return;
  if (written_ == 0) {
    start_ns_ = mono_ns();
    if (context_.pipeline > 1) {
      start_batch(start_ns_);
    } else {
      first_byte_ns_ = 0;
      if (begin_ns_ == 0) {  // a reused connection: the request begins with its first byte
        mark_begin(start_ns_);
        arm_timeout(begin_ns_);
      }
    }
  }
  while (written_ < request_.size()) {
    std::size_t n = 0;
    const net::IoStatus status =
        stream_->write(request_.data() + written_, request_.size() - written_, n);
    if (status == net::IoStatus::WouldBlock) {
      state_ = State::Writing;
      return;
    }
    if (status != net::IoStatus::Done) {
      fail(stream_->error());
      return;
    }
    written_ += n;
    context_.stats->add_bytes(0, n);
  }
  state_ = State::Reading;
  if (context_.pipeline > 1) {
    batch_.clear();
    written_ = 0;
    if (readable_) {
      readable_ = false;
      read_pipelined(EPOLLIN);
    } else if (held_.due) {
      fill(/*after_busy=*/true);
    }
    return;
  }
  if (readable_) {
    readable_ = false;
    read_response(EPOLLIN);
  }
}

void Connection::read_response(std::uint32_t events) {
  // The server's FIN may come in the same edge as the response: after that response the
  // socket is dropped at once, not drained (no further edge would announce the EOF).
  if (events & (EPOLLRDHUP | EPOLLHUP)) peer_closed_ = true;
  const ReadEnd end =
      read_available(*stream_, context_, events, [this](const char* data, std::size_t n) {
        // The wake-up that brought the response's first bytes (free: the loop's cached time).
        if (first_byte_ns_ == 0) first_byte_ns_ = context_.loop->now_ns();
        return !consume(data, n);
      });
  if (end == ReadEnd::Eof) {
    on_eof();
  } else if (end == ReadEnd::Error) {
    fail(stream_->error());
  }
}

bool Connection::consume(const char* data, std::size_t length) {
  for (;;) {
    const http::Step step = parser_.feed(data, length);
    data += step.consumed;
    length -= step.consumed;
    received_ += step.consumed;
    switch (step.event) {
      case http::Event::NeedMore:
        return false;
      case http::Event::HeadComplete:
        break;
      case http::Event::MessageComplete:
        // Bytes beyond the response (nothing was asked for them): finish it, drop the socket.
        if (length > 0) unusable_ = true;
        complete();
        return true;
      case http::Event::Error:
        fail(EPROTO);
        return true;
    }
  }
}

void Connection::on_eof() {
  peer_closed_ = true;
  const http::Step step = parser_.finish();
  if (step.event == http::Event::MessageComplete) {
    complete();
    return;
  }
  // Closed before a (complete) response: what Node reports as a socket hang up.
  fail(ECONNRESET);
}

void Connection::complete() {
  const std::int64_t end = mono_ns();
  WorkerStats& stats = *context_.stats;
  const std::int64_t from = context_.paced ? intended_ns_ : begin_ns_;
  const std::int64_t uncorrected = end - begin_ns_;
  const std::string_view verdict = context_.hook_set
                                       ? notify_hook(parser_.status(), 0, end - from, uncorrected)
                                       : std::string_view();
  if (verdict.empty()) {
    stats.record_response(parser_.status(), from, end);
  } else {
    stats.record_custom_error(verdict, parser_.status(), from, end);
  }
  if (context_.log) {
    LogLine line = log_line(end);
    line.status = parser_.status();
    line.code = verdict;
    context_.log->append(line);
  }
  // A response read with the write (the server answered early) has no later wake-up: 0.
  stats.record_first_byte(first_byte_ns_ - start_ns_);
  if (RateStats* rate = stats.rate()) {
    rate->on_completed(end - from, uncorrected, end, RateStats::class_of_status(parser_.status()));
  }
  for (std::size_t i = 0; i < context_.count_headers.size(); ++i) {
    if (auto value = parser_.captured(i)) stats.count_header_value(i, *value);
  }
  context_.loop->cancel(timer_);
  begin_ns_ = 0;
  responded_ = true;
  failures_ = 0;
  const bool server_keeps_it = parser_.keep_alive() && !parser_.upgrade();
  if (context_.keep_alive && server_keeps_it && !peer_closed_ && !unusable_) {
    request_next();
    return;
  }
  if (server_keeps_it || peer_closed_ || unusable_ || parser_.upgrade()) {
    close_socket();
    request_next();
    return;
  }
  // The server said it closes after this response: wait for its FIN, so that the TIME_WAIT
  // is on its side and not on our ephemeral ports.
  state_ = State::Draining;
  context_.loop->schedule(timer_,
                          context_.loop->now_ns() + net::close_grace_ns(context_.timeout_ns));
}

void Connection::fail(int err) {
  if (context_.pipeline > 1) {
    fail_pipelined(err);
    return;
  }
  const std::int64_t end = mono_ns();
  const std::int64_t begun = begin_ns_ ? begin_ns_ : end;
  const std::int64_t from = context_.paced ? intended_ns_ : begun;
  context_.stats->record_failure(err, from, end);
  if (context_.log) {
    LogLine line = log_line(end);
    line.start_ns = begun;
    line.err = err;
    context_.log->append(line);
  }
  if (RateStats* rate = context_.stats->rate()) {
    rate->on_completed(end - from, end - begun, end, stats::ErrorClass::Transport);
  }
  if (context_.hook_set) notify_hook(0, err, end - from, end - begun);
  const bool fresh = !responded_;
  close_socket();
  if (!fresh) {
    request_next();
    return;
  }
  backoff();
}

// A held permit is kept: only a pipelined connection can fail while holding one, and the owner
// releases it as usual.
void Connection::backoff() {
  ++failures_;
  state_ = State::Waiting;
  context_.loop->schedule(timer_, context_.loop->now_ns() + net::backoff_ns(failures_));
}

void Connection::drain(std::uint32_t events) {
  if (!(events & net::kReadEvents)) return;
  char* buffer = context_.read_buffer.data();
  for (;;) {
    std::size_t n = 0;
    const net::IoStatus status = stream_->read(buffer, context_.read_buffer.size(), n);
    if (status == net::IoStatus::WouldBlock) return;
    if (status != net::IoStatus::Done) break;  // EOF or error: the server closed
    context_.stats->add_bytes(n, 0);
  }
  close_socket();
  request_next();
}

void Connection::on_timer() {
  switch (state_) {
    case State::Waiting:
      // Backoff over (a held permit is the owner's until it releases it).
      if (context_.pipeline > 1) {
        if (!held_.held || held_.due) fill(/*after_busy=*/true);
      } else if (!held_.held) {
        request_next();
      }
      break;
    case State::Connecting:
    case State::Writing:
    case State::Reading:
      fail(ETIMEDOUT);
      break;
    case State::Draining:
      close_socket();
      request_next();
      break;
    case State::Idle:
    case State::Finished:
      break;
  }
}

void Connection::arm_timeout(std::int64_t from_ns) {
  if (context_.timeout_ns > 0) context_.loop->schedule(timer_, from_ns + context_.timeout_ns);
}

// Closing the descriptor also removes it from epoll: no epoll_ctl call.
void Connection::close_socket() {
  context_.loop->cancel(timer_);
  if (stream_) connector_->close(responded_ && !unusable_);
  stream_ = nullptr;
  secured_ = !secure_;
  parser_.reset();
  begin_ns_ = 0;
  readable_ = peer_closed_ = unusable_ = responded_ = false;
  state_ = State::Idle;
}

void Connection::finish() {
  close_socket();
  held_ = {};
  state_ = State::Finished;
  context_.owner->on_finished();
}

}  // namespace stampede::loadgen
