#include "loadgen/ws_client.h"

#include <errno.h>
#include <sys/epoll.h>

#include <algorithm>
#include <iterator>

#include "core/clock.h"
#include "core/random.h"
#include "loadgen/connection_read.h"
#include "loadgen/connector.h"
#include "net/poller.h"
#include "tls/errors.h"
#include "ws/handshake.h"

namespace stampede::loadgen {
WsClient::WsClient(const ConnectionContext& context) : WsClient(context, make_connector(context)) {}

WsClient::WsClient(const ConnectionContext& context, std::unique_ptr<net::Connector> connector)
    : context_(context),
      plan_(*context.websocket),
      connector_(std::move(connector)),
      parser_(std::vector<std::string>(std::begin(ws::kAnswerFields), std::end(ws::kAnswerFields))),
      session_(ws::Role::Client, *this),
      timer_([this] { on_timer(); }),
      seed_(reinterpret_cast<std::uintptr_t>(this) ^ static_cast<std::uint64_t>(mono_ns())) {
  secure_ = connector_->has_handshake();
}

WsClient::~WsClient() = default;

void WsClient::start() {
  request_next();
}

void WsClient::stop_sending() {
  stopping_ = true;
  if (state_ != State::Idle && state_ != State::Waiting) return;  // after the one in flight
  in_flight_ = false;  // a permit waiting for its time is dropped, as Connection does
  if (open_) {
    begin_close();
  } else {
    finish();
  }
}

void WsClient::request_next() {
  const std::int64_t now = context_.loop->now_ns();
  const SendPermit permit = stopping_ ? SendPermit{} : context_.owner->next_send(now);
  if (!permit.send) {
    if (open_) {
      begin_close();
    } else {
      finish();
    }
    return;
  }
  in_flight_ = true;
  index_ = permit.index;
  if (permit.at_ns > now) {
    state_ = State::Waiting;
    context_.loop->schedule(timer_, permit.at_ns);
    return;
  }
  begin();
}

void WsClient::begin() {
  if (open_) {
    send_message();
  } else {
    open_socket();
  }
}

void WsClient::open_socket() {
  close_socket();
  begin_ns_ = mono_ns();
  start_ns_ = connected_ns_ = 0;  // --log: this message's, once they happen
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
  } else {
    state_ = State::Connecting;
  }
}

void WsClient::on_events(std::uint32_t events) {
  // TLS: a write that waits for the peer's records (WANT_READ) goes on when bytes arrive (it
  // returns at once when nothing is pending), and a read that stopped for want of writability
  // (WANT_WRITE: a key update's answer or an alert to flush) goes on when the socket drains.
  const bool may_write = (events & net::kWriteEvents) || (secure_ && (events & net::kReadEvents));
  const bool may_read = (events & net::kReadEvents) || read_wants_write_;
  switch (state_) {
    case State::Connecting:
      on_connect_event();
      break;
    case State::Securing:
      secure_handshake();
      break;
    case State::Handshaking:
      if (may_write && !write_pending()) return;
      if (may_read) read_handshake();
      break;
    case State::Idle:
    case State::Waiting:
    case State::Awaiting:
    case State::Closing:
      if (!stream_) break;
      if (may_write && !write_pending()) return;
      if (may_read) read_frames(events);
      break;
    case State::Finished:
      break;
  }
}

void WsClient::on_connect_event() {
  const int err = connector_->connect_result();
  if (err != 0) {
    fail(err);
    return;
  }
  connected();
}

// The TCP connection is up (and counted, with its connect time): the upgrade goes now (ws://) or
// after the CONNECT exchange (through --proxy) and the TLS handshake (wss://).
void WsClient::connected() {
  connected_ns_ = connector_->connected_ns();
  context_.stats->add_connection(connected_ns_ - begin_ns_);
  if (secure_) {
    state_ = State::Securing;
    secure_handshake();
  } else {
    send_handshake();
  }
}

// Advances the CONNECT exchange and the TLS handshake; either readiness may move them on.
void WsClient::secure_handshake() {
  switch (connector_->handshake()) {
    case net::IoStatus::Done:
      if (context_.tls != nullptr) {
        context_.stats->add_tls_handshake(connector_->resumed(),
                                          mono_ns() - connector_->connected_ns());
      }
      send_handshake();
      break;
    case net::IoStatus::Error:
      fail(connector_->error());
      break;
    default:
      break;
  }
}

void WsClient::send_handshake() {
  Random random(++seed_);
  key_ = ws::make_key(random);
  ws::finish_request(handshake_, plan_.handshake_prefix, key_);
  written_ = 0;
  state_ = State::Handshaking;
  if (write_pending()) read_handshake();
}

// One read into the shared read buffer (`n` bytes at its start): whether a read that would
// block waits for writability (TLS WANT_WRITE) is kept for on_events().
net::IoStatus WsClient::read_some(std::size_t& n) {
  const net::IoStatus status =
      stream_->read(context_.read_buffer.data(), context_.read_buffer.size(), n);
  read_wants_write_ = status == net::IoStatus::WouldBlock && stream_->wants_write();
  return status;
}

// Reads the answer to the upgrade. A status other than 101 is a refusal, counted by status as
// soon as the head is in (the body does not matter: the socket is dropped).
bool WsClient::read_handshake() {
  char* buffer = context_.read_buffer.data();
  for (;;) {
    std::size_t n = 0;
    const net::IoStatus status = read_some(n);
    if (status == net::IoStatus::WouldBlock) return true;
    if (status != net::IoStatus::Done) {
      fail(status == net::IoStatus::Eof ? ECONNRESET : stream_->error());
      return false;
    }
    context_.stats->add_bytes(n, 0);
    std::size_t used = 0;
    for (;;) {  // until NeedMore: MessageComplete of a 101 comes at the head's end offset
      const http::Step step = parser_.feed(buffer + used, n - used);
      used += step.consumed;
      if (step.event == http::Event::Error) {
        fail(EPROTO);
        return false;
      }
      if (step.event == http::Event::NeedMore) break;
      if (parser_.status() != 101) {
        fail_ws(WsFailure::Refused, parser_.status());
        return false;
      }
      if (step.event != http::Event::MessageComplete) continue;
      const ws::Answer answer{parser_.header("upgrade"), parser_.header("connection"),
                              parser_.header("sec-websocket-accept"),
                              parser_.header("sec-websocket-extensions"),
                              parser_.header("sec-websocket-protocol")};
      if (!ws::check_response(answer, key_) || !session_.reset(++seed_)) {
        fail_ws(WsFailure::Protocol, 0);
        return false;
      }
      open_ = true;
      // Frames right behind the 101 (a server may greet first) go to the session.
      if (used < n && !session_.feed(buffer + used, n - used)) {
        fail(ENOMEM);
        return false;
      }
      send_message();
      // The bytes behind the 101 may have ended with the server's close, and edge-triggered
      // readiness will not report it again: read on until the socket would block.
      if (stream_) read_frames(net::kHangupEvents);
      return false;
    }
  }
}

void WsClient::send_message() {
  state_ = State::Awaiting;
  start_ns_ = mono_ns();
  received_ = 0;
  if (begin_ns_ == 0) {  // an open socket: the message begins with its first byte
    begin_ns_ = start_ns_;
    connected_ns_ = 0;
    arm_timeout(begin_ns_);
  }
  std::string_view payload = plan_.message.text();
  if (plan_.message.indexed()) {
    plan_.message.render(index_, message_);
    payload = message_;
  }
  session_.send(ws::Message{!plan_.binary, payload});  // the session copies the payload
  if (write_pending()) check_session();
}

// Writes the upgrade request (while handshaking) or the session's frames. False when the
// socket failed (and was dropped).
bool WsClient::write_pending() {
  for (;;) {
    const bool handshaking = state_ == State::Handshaking;
    const std::string_view pending =
        handshaking ? std::string_view(handshake_).substr(written_) : session_.output();
    if (pending.empty()) return true;
    std::size_t n = 0;
    const net::IoStatus status = stream_->write(pending.data(), pending.size(), n);
    if (status == net::IoStatus::WouldBlock) return true;
    if (status != net::IoStatus::Done) {
      fail(stream_->error());
      return false;
    }
    context_.stats->add_bytes(0, n);
    if (handshaking) {
      written_ += n;
    } else {
      session_.consume_output(n);
    }
  }
}

void WsClient::read_frames(std::uint32_t events) {
  const ReadEnd end =
      read_available(*stream_, context_, events, [this](const char* data, std::size_t n) {
        read_wants_write_ = false;  // as read_some() after a read that moved bytes
        received_ += n;
        if (!session_.feed(data, n)) {
          fail(ENOMEM);
          return false;
        }
        if (!write_pending()) return false;
        if (replied_now_) {
          replied_now_ = false;
          complete();
          if (!stream_) return false;
        }
        return check_session();
      });
  switch (end) {
    case ReadEnd::WouldBlock:
      read_wants_write_ = stream_->wants_write();
      break;
    case ReadEnd::Eof:
      if (state_ == State::Closing) {
        finish();
      } else {
        fail_ws(WsFailure::Closed,
                session_.close_received() ? session_.received_code() : ws::kCloseAbnormal);
      }
      break;
    case ReadEnd::Error:
      fail(stream_->error());
      break;
    case ReadEnd::Drained:
    case ReadEnd::Stopped:
      break;
  }
}

void WsClient::on_message(const ws::Message&) {
  // Called inside Session::feed: only noted here, acted on once feed() returned.
  if (state_ == State::Awaiting && in_flight_) replied_now_ = true;
}

// After the session took input or output: ends the socket on a close or a protocol error.
// False when the socket is gone.
bool WsClient::check_session() {
  if (session_.failure() != 0) {
    fail_ws(WsFailure::Protocol, session_.failure());
    return false;
  }
  if (!session_.close_received()) return true;
  if (state_ == State::Closing) {
    finish();
  } else {
    fail_ws(WsFailure::Closed, session_.received_code());
  }
  return false;
}

void WsClient::complete() {
  const std::int64_t end = mono_ns();
  context_.stats->record_message(start_ns_, end);
  if (context_.log) log_message(end, 0, {});
  context_.loop->cancel(timer_);
  begin_ns_ = 0;
  in_flight_ = false;
  replied_ = true;
  failures_ = 0;
  request_next();
}

void WsClient::fail(int err) {
  if (tls::error_name(err)) tls_failed_ = true;  // its session is not offered again
  const std::int64_t end = mono_ns();
  if (in_flight_) {
    context_.stats->record_failure(err, begin_ns_ ? begin_ns_ : end, end);
    if (context_.log) log_message(end, err, {});
  }
  after_failure();
}

void WsClient::fail_ws(WsFailure kind, int code) {
  const std::int64_t end = mono_ns();
  if (in_flight_) {
    context_.stats->record_ws_failure(kind, code, begin_ns_ ? begin_ns_ : end, end);
    if (context_.log) log_message(end, 0, ws_error_name(kind, code));
  }
  after_failure();
}

// A message's line: no status (a reply is not an HTTP response), no first byte (as the report).
void WsClient::log_message(std::int64_t end_ns, int err, std::string_view code) {
  LogLine line;
  line.index = index_;
  line.connection = socket_id_;
  line.start_ns = begin_ns_ != 0 ? begin_ns_ : end_ns;
  line.connected_ns = connected_ns_;
  line.sent_ns = start_ns_;
  line.end_ns = end_ns;
  line.err = err;
  line.code = code;
  line.bytes = start_ns_ != 0 ? received_ : 0;
  context_.log->append(line);
}

// The socket is dropped; the next permit opens a new one, after a backoff when this one never
// carried a reply.
void WsClient::after_failure() {
  const bool fresh = !replied_;
  const bool closing = state_ == State::Closing || stopping_;
  in_flight_ = false;
  close_socket();
  if (closing) {
    finish();
    return;
  }
  if (!fresh) {
    request_next();
    return;
  }
  ++failures_;
  state_ = State::Waiting;
  context_.loop->schedule(timer_, context_.loop->now_ns() + net::backoff_ns(failures_));
}

// No more messages: send our close and wait (briefly) for the server's.
void WsClient::begin_close() {
  state_ = State::Closing;
  session_.close(ws::kCloseNormal);
  if (!write_pending()) return;
  context_.loop->schedule(timer_,
                          context_.loop->now_ns() + net::close_grace_ns(context_.timeout_ns));
}

void WsClient::on_timer() {
  switch (state_) {
    case State::Waiting:
      if (in_flight_) {
        begin();
      } else {
        request_next();  // backoff over
      }
      break;
    case State::Connecting:
    case State::Securing:
    case State::Handshaking:
    case State::Awaiting:
      fail(ETIMEDOUT);
      break;
    case State::Closing:
      finish();
      break;
    case State::Idle:
    case State::Finished:
      break;
  }
}

void WsClient::arm_timeout(std::int64_t from_ns) {
  if (context_.timeout_ns > 0) context_.loop->schedule(timer_, from_ns + context_.timeout_ns);
}

// Closing the descriptor also removes it from epoll. A wss socket whose TLS did not fail keeps
// its session for the next socket (a close by the server or a refused upgrade leaves it sound).
void WsClient::close_socket() {
  context_.loop->cancel(timer_);
  if (stream_) connector_->close(!tls_failed_);
  stream_ = nullptr;
  parser_.reset();
  begin_ns_ = 0;
  open_ = replied_ = replied_now_ = read_wants_write_ = tls_failed_ = false;
  state_ = State::Idle;
}

void WsClient::finish() {
  close_socket();
  in_flight_ = false;
  state_ = State::Finished;
  context_.owner->on_finished();
}

}  // namespace stampede::loadgen
