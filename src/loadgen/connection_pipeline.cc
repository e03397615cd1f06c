// The Connection's pipelined path (--pipeline N > 1, keep-alive): up to N requests in flight,
// written together, each answered (in order) or counted once when the connection ends. Closed
// loop, in batches of N: the next batch once the last is answered. With --rps, what is due.
#include <errno.h>
#include <sys/epoll.h>

#include "core/clock.h"
#include "loadgen/connection.h"
#include "loadgen/connection_read.h"
#include "net/poller.h"

namespace stampede::loadgen {

void Connection::fill(bool after_busy) {
  // A connect or a write in progress takes more when it is done.
  if (state_ == State::Connecting || state_ == State::Writing || state_ == State::Finished) return;
  if (stream_ && peer_closed_) {
    if (!flight_.empty()) return;  // its EOF counts what is left
    close_socket();
  }
  if (stream_) {
    // Closed loop, a batch goes out whole and the next once all of it is answered, as wrk's
    // pipeline script does: one write per N requests, not one per read with the few that read
    // answered. With --rps the answered ones make room for those due: the schedule is kept.
    if (context_.paced || flight_.empty()) take_permits(context_.pipeline, after_busy);
    if (!batch_.empty()) {
      write_request();
      return;
    }
  } else {
    // A new socket carries one request until it is connected (then start_batch tops it up), so
    // a refused connect costs one request, not N.
    take_permits(1, after_busy);
    if (!flight_.empty()) {
      open_socket();
      return;
    }
  }
  if (!flight_.empty()) return;  // reading: the next response makes room
  if (held_.held) {
    state_ = State::Waiting;
  } else if (no_more_) {
    finish();
  }
}

void Connection::take_permits(std::size_t depth, bool after_busy) {
  const std::int64_t now = context_.loop->now_ns();
  while (flight_.size() < depth) {
    SendPermit permit;
    if (held_.held) {
      if (!held_.due) return;
      permit = held_.take();
    } else {
      if (no_more_) return;
      permit = held_.next(*context_.owner, *this, now, after_busy);
      if (!permit.send) {
        no_more_ = true;
        return;
      }
      if (held_.held) return;
    }
    FlightEntry entry;
    entry.intended_ns = permit.at_ns;
    entry.index = permit.index;
    entry.waited_for_connection = permit.waited_for_connection;
    flight_.push(entry);
    ++unwritten_;
    if (context_.request->indexed()) {
      context_.request->render(permit.index, rendered_);
      batch_.append(rendered_);
    } else {
      batch_.append(context_.request->fixed());
    }
  }
}

void Connection::start_batch(std::int64_t now_ns) {
  // Just connected (or handshaken): the permits due meanwhile join the first request.
  take_permits(context_.pipeline, /*after_busy=*/true);
  request_ = batch_;
  RateStats* rate = context_.stats->rate();
  for (std::size_t i = flight_.size() - unwritten_; i < flight_.size(); ++i) {
    FlightEntry& entry = flight_.at(i);
    entry.written_ns = now_ns;
    if (entry.begin_ns == 0) {  // on a reused connection a request begins with its first byte
      entry.begin_ns = now_ns;
      if (rate) rate->on_sent(entry.intended_ns, now_ns, entry.waited_for_connection);
    }
  }
  unwritten_ = 0;
  if (context_.head_request) parser_.expect_no_body();
  if (!timer_.armed()) arm_timeout(flight_.front().begin_ns);
}

void Connection::read_pipelined(std::uint32_t events) {
  if (events & (EPOLLRDHUP | EPOLLHUP)) peer_closed_ = true;
  const ReadEnd end =
      read_available(*stream_, context_, events, [this](const char* data, std::size_t n) {
        if (first_byte_ns_ == 0) first_byte_ns_ = context_.loop->now_ns();
        // One clock reading per read: every response in these bytes ended when they arrived.
        return consume_pipelined(data, n, mono_ns());
      });
  switch (end) {
    case ReadEnd::Eof:
      eof_pipelined();
      break;
    case ReadEnd::Error:
      fail_pipelined(stream_->error());
      break;
    case ReadEnd::Stopped:
      break;
    case ReadEnd::Drained:
    case ReadEnd::WouldBlock:
      fill(/*after_busy=*/true);  // the next batch, or (--rps) the answered ones replaced
      break;
  }
}

bool Connection::consume_pipelined(const char* data, std::size_t length, std::int64_t end_ns) {
  // Fed until it needs more, even with no bytes left: a HEAD response completes in a feed of
  // nothing after its head.
  for (;;) {
    if (flight_.empty()) {
      if (length == 0) return true;
      close_socket();  // bytes beyond every response asked for: do not reuse the socket
      reconnect(/*responded=*/true);
      return false;
    }
    const http::Step step = parser_.feed(data, length);
    data += step.consumed;
    length -= step.consumed;
    received_ += step.consumed;  // --log: the front response's bytes
    switch (step.event) {
      case http::Event::NeedMore:
        return true;
      case http::Event::HeadComplete:
        break;
      case http::Event::MessageComplete:
        complete_front(end_ns);
        if (!parser_.keep_alive() || parser_.upgrade()) {  // the server ends the connection
          abandon_flight(0, end_ns);
          close_socket();
          reconnect(/*responded=*/true);
          return false;
        }
        if (context_.head_request) parser_.expect_no_body();
        // The next response's first bytes are here already (the wake-up that read them).
        first_byte_ns_ = length > 0 ? context_.loop->now_ns() : 0;
        break;
      case http::Event::Error:
        fail_pipelined(EPROTO);
        return false;
    }
  }
}

void Connection::complete_front(std::int64_t end_ns) {
  const FlightEntry entry = flight_.pop();
  WorkerStats& stats = *context_.stats;
  const int status = parser_.status();
  const std::int64_t from = context_.paced ? entry.intended_ns : entry.begin_ns;
  stats.record_response(status, from, end_ns);
  stats.record_first_byte(first_byte_ns_ - entry.written_ns);
  if (RateStats* rate = stats.rate()) {
    rate->on_completed(end_ns - from, end_ns - entry.begin_ns, end_ns,
                       RateStats::class_of_status(status));
  }
  for (std::size_t i = 0; i < context_.count_headers.size(); ++i) {
    if (auto value = parser_.captured(i)) stats.count_header_value(i, *value);
  }
  if (context_.log) log_flight(entry, end_ns, status, 0, {});
  responded_ = true;
  failures_ = 0;
  if (context_.timeout_ns > 0) {
    context_.loop->cancel(timer_);
    if (!flight_.empty()) arm_timeout(flight_.front().begin_ns);
  }
}

void Connection::abandon_flight(int err, std::int64_t end_ns) {
  WorkerStats& stats = *context_.stats;
  bool oldest = true;
  while (!flight_.empty()) {
    const FlightEntry entry = flight_.pop();
    const std::int64_t begun = entry.begin_ns != 0 ? entry.begin_ns : end_ns;
    const std::int64_t from = context_.paced ? entry.intended_ns : begun;
    if (oldest && err != 0) {
      stats.record_failure(err, from, end_ns);
      if (context_.log) log_flight(entry, end_ns, 0, err, {});
    } else {
      stats.record_custom_error(kUnanswered, 0, from, end_ns);
      if (context_.log) log_flight(entry, end_ns, 0, 0, kUnanswered);
    }
    if (RateStats* rate = stats.rate()) {
      rate->on_completed(end_ns - from, end_ns - begun, end_ns, stats::ErrorClass::Transport);
    }
    oldest = false;
  }
  batch_.clear();
  written_ = unwritten_ = 0;
  first_byte_ns_ = 0;
}

void Connection::fail_pipelined(int err) {
  abandon_flight(err, mono_ns());
  const bool responded = responded_;
  close_socket();
  reconnect(responded);
}

void Connection::eof_pipelined() {
  peer_closed_ = true;
  const std::int64_t end = mono_ns();
  if (!flight_.empty()) {
    const http::Step step = parser_.finish();
    if (step.event == http::Event::MessageComplete) {  // a close-delimited body ended
      complete_front(end);
      abandon_flight(0, end);
    } else {
      abandon_flight(ECONNRESET, end);  // closed before the oldest was answered
    }
  }
  const bool responded = responded_;
  close_socket();
  reconnect(responded);
}

void Connection::reconnect(bool responded) {
  if (responded) {
    fill(/*after_busy=*/true);
  } else {
    backoff();
  }
}

}  // namespace stampede::loadgen
