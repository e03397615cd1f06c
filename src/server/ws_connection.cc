#include "server/ws_connection.h"

#include "server/deadline.h"
#include "server/worker.h"

namespace stampede::server {
namespace {

// Delayed echoes held at most; past this, reading waits (the client sends faster than the
// delay lets us answer).
constexpr std::size_t kMaxDelayed = 1024;
constexpr std::size_t kMaxDelayedBytes = 4 * 1024 * 1024;
// How long a close we sent waits for the peer's close (or its end of stream).
constexpr std::int64_t kCloseWaitNs = 2'000'000'000;

}  // namespace

WsConnection::WsConnection(Worker& worker, Connection& owner)
    : worker_(worker),
      owner_(owner),
      session_(ws::Role::Server, *this),
      delay_timer_([this] { on_delay(); }),
      deadline_timer_([this] { on_deadline(); }) {}

void WsConnection::start(WsHandover handover) {
  stream_ = handover.stream;
  prefix_ = std::move(handover.output);
  prefix_sent_ = 0;
  delay_ns_ = handover.delay_ns;
  input_ = handover.socket;
  active_ = true;
  last_activity_ns_ = worker_.loop().now_ns();
  if (!session_.reset() || !session_.feed(handover.input.data(), handover.input.size())) {
    close_now();
    return;
  }
  advance();
}

void WsConnection::release() {
  worker_.loop().cancel(delay_timer_);
  worker_.loop().cancel(deadline_timer_);
  stream_ = nullptr;
  prefix_.clear();
  prefix_sent_ = 0;
  delayed_.clear();
  delayed_bytes_ = 0;
  close_deadline_ns_ = 0;
  input_ = SocketInput{};
  active_ = shut_ = false;
  ++generation_;
}

void WsConnection::on_events(std::uint32_t events) {
  if (!input_.on_events(events)) {
    close_now();
    return;
  }
  advance();
}

void WsConnection::drain() {
  session_.close(ws::kCloseGoingAway, "server stopping");
  advance();
}

// Writes what is pending, reads and feeds what the socket holds, writes the answers; returns
// with the connection closed or waiting for an event or a timer.
void WsConnection::advance() {
  for (int reads = 0;; ++reads) {
    if (!flush()) return;
    if (input_paused() || !input_.unread) break;
    if (reads == kReadsPerActivation) {
      // Edge-triggered: no new event will come for bytes already there, so come back later.
      worker_.loop().defer([this, generation = generation_] {
        if (generation == generation_) advance();
      });
      return;
    }
    if (!read_once()) return;
  }
  finish_up();
}

bool WsConnection::read_once() {
  char* data = worker_.scratch_in();
  std::size_t n = 0;
  const net::IoStatus status = input_.read(*stream_, data, worker_.scratch_in_size(), n);
  if (status == net::IoStatus::Done) {
    last_activity_ns_ = worker_.loop().now_ns();
    if (session_.feed(data, n)) return true;
  } else if (status != net::IoStatus::Error) {
    return true;
  }
  close_now();
  return false;
}

// Writes the HTTP prefix, then the session's frames, until done or the socket is full. False
// when the connection was closed.
bool WsConnection::flush() {
  for (;;) {
    const bool in_prefix = prefix_sent_ < prefix_.size();
    const std::string_view pending =
        in_prefix ? std::string_view(prefix_).substr(prefix_sent_) : session_.output();
    if (pending.empty()) return true;
    std::size_t n = 0;
    const net::IoStatus status = stream_->write(pending.data(), pending.size(), n);
    if (status == net::IoStatus::Error) {
      close_now();
      return false;
    }
    if (status != net::IoStatus::Done) return true;
    last_activity_ns_ = worker_.loop().now_ns();
    WorkerCounters::add(worker_.counters().bytes_written, std::uint64_t{n});
    if (in_prefix) {
      prefix_sent_ += n;
    } else {
      session_.consume_output(n);
    }
  }
}

// After an activation: close when the exchange is over, else make sure a timer comes back.
void WsConnection::finish_up() {
  const bool written = prefix_sent_ == prefix_.size() && session_.output().empty();
  if (input_.eof || (written && session_.done() && session_.close_received())) {
    // The peer is gone, or the closing handshake is complete: the server closes TCP first.
    close_now();
    return;
  }
  if (session_.close_sent() && close_deadline_ns_ == 0) {
    close_deadline_ns_ = worker_.loop().now_ns() + kCloseWaitNs;
  }
  if (written && session_.close_sent() && !session_.reading() && !shut_) {
    // We refused its input: no close will come, so send our FIN and wait for the peer's.
    stream_->shutdown_write();
    shut_ = true;
  }
  arm_deadline();
}

void WsConnection::close_now() {
  worker_.close(owner_);
}

void WsConnection::on_message(const ws::Message& message) {
  WorkerCounters& counters = worker_.counters();
  WorkerCounters::add(counters.requests, std::uint64_t{1});
  const ServerOptions& o = worker_.options();
  if (o.error_percent > 0 ? worker_.spread().next() : o.error_status != 0) {
    WorkerCounters::add(counters.errors, std::uint64_t{1});
    session_.close(ws::kCloseInternalError, "ERROR");
    return;
  }
  if (delay_ns_ <= 0) {
    session_.send(message);
    return;
  }
  delayed_.push_back(
      {worker_.loop().now_ns() + delay_ns_, message.text, std::string(message.payload)});
  delayed_bytes_ += message.payload.size();
  if (!delay_timer_.armed()) worker_.loop().schedule(delay_timer_, delayed_.front().due_ns);
}

void WsConnection::on_delay() {
  const std::int64_t now = worker_.loop().now_ns();
  while (!delayed_.empty() && delayed_.front().due_ns <= now) {
    const Delayed& d = delayed_.front();
    session_.send(ws::Message{d.text, d.payload});
    WorkerCounters::add(worker_.counters().service_ns, now - (d.due_ns - delay_ns_));
    delayed_bytes_ -= d.payload.size();
    delayed_.pop_front();
  }
  if (!delayed_.empty()) worker_.loop().schedule(delay_timer_, delayed_.front().due_ns);
  advance();
}

void WsConnection::on_deadline() {
  if (!active_) return;
  if (!deadline_reached(worker_.loop(), deadline_timer_, deadline())) return;
  close_now();
}

void WsConnection::arm_deadline() {
  arm_deadline_timer(worker_.loop(), deadline_timer_, deadline());
}

// The close wait once we closed, else the idle timeout since the last progress.
std::int64_t WsConnection::deadline() const {
  if (close_deadline_ns_ != 0) return close_deadline_ns_;
  return last_activity_ns_ + worker_.options().idle_timeout.count();
}

bool WsConnection::input_paused() const {
  return delayed_.size() >= kMaxDelayed || delayed_bytes_ >= kMaxDelayedBytes ||
         session_.output().size() > kOutputHighWater;
}

}  // namespace stampede::server
