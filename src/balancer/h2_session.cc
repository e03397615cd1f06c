#include "balancer/h2_session.h"

#include <sys/epoll.h>

#include <algorithm>

#include "balancer/h2_stream.h"
#include "balancer/proxy_session.h"
#include "balancer/session_limits.h"
#include "balancer/worker.h"
#include "h2/server_session.h"

namespace stampede::balancer {
namespace {

// The HTTP/1.1 front's head limit (http::ParserLimits::max_header_bytes), for the decoded list.
constexpr std::uint32_t kMaxHeaderList = 16 * 1024;

}  // namespace

struct H2Session::Callbacks {
  static H2Session& self(void* user) { return *static_cast<H2Session*>(user); }

  static int begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    H2Session& s = self(user);
    const std::int32_t id = frame->hd.stream_id;
    s.streams_[id] = std::make_unique<H2Stream>(s, s.worker_, id);
    return 0;
  }

  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name,
                       std::size_t namelen, const std::uint8_t* value, std::size_t valuelen,
                       std::uint8_t, void* user) {
    H2Session& s = self(user);
    H2Stream* x = s.find(frame->hd.stream_id);
    if (x == nullptr || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;  // trailers: dropped
    // RFC 9113 6.5.2's size of a header list: name, value and 32 bytes each.
    if (!x->count_header(namelen + valuelen + 32, kMaxHeaderList)) {
      s.end_session(NGHTTP2_ENHANCE_YOUR_CALM);  // an HPACK bomb: small on the wire
      return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    }
    x->fields().add({reinterpret_cast<const char*>(name), namelen},
                    {reinterpret_cast<const char*>(value), valuelen});
    return 0;
  }

  static int on_data(nghttp2_session*, std::uint8_t, std::int32_t id, const std::uint8_t* data,
                     std::size_t length, void* user) {
    H2Session& s = self(user);
    if (H2Stream* x = s.find(id)) {
      x->on_body(data, length);
      s.want_service(*x);
    } else {
      s.consume(id, length);
    }
    return 0;
  }

  static int on_frame(nghttp2_session* session, const nghttp2_frame* frame, void* user) {
    H2Session& s = self(user);
    const bool ok = h2::note_frame(s.flood_, *frame, s.worker_.loop().now_ns());
    const bool end = (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
    switch (frame->hd.type) {
      case NGHTTP2_DATA:
        // The connection window is given back at once (streams bound what they hold), and
        // padding is nobody's body.
        nghttp2_session_consume_connection(session, frame->hd.length);
        if (frame->data.padlen > 0) s.consume(frame->hd.stream_id, frame->data.padlen);
        break;
      case NGHTTP2_HEADERS:
        if (frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
          s.got_headers_ = true;
          if (H2Stream* x = s.find(frame->hd.stream_id)) {
            x->on_request_head(end);
            s.want_service(*x);
          }
          return 0;
        }
        break;
      default:
        break;
    }
    if (!ok) {
      s.end_session(NGHTTP2_ENHANCE_YOUR_CALM);
      return 0;
    }
    if (end && (frame->hd.type == NGHTTP2_DATA || frame->hd.type == NGHTTP2_HEADERS)) {
      if (H2Stream* x = s.find(frame->hd.stream_id)) {
        x->on_request_end();
        s.want_service(*x);
      }
    }
    return 0;
  }

  static int on_invalid(nghttp2_session*, const nghttp2_frame*, int, void* user) {
    H2Session& s = self(user);
    if (!h2::note_invalid_frame(s.flood_, s.worker_.loop().now_ns()))
      s.end_session(NGHTTP2_ENHANCE_YOUR_CALM);
    return 0;
  }

  static int on_close(nghttp2_session*, std::int32_t id, std::uint32_t, void* user) {
    self(user).stream_closed(id);
    return 0;
  }

  static void install(nghttp2_session_callbacks* cb) {
    h2::set_callbacks(cb,
                      {begin_headers, on_header, on_data, on_frame, on_invalid, nullptr, on_close});
  }
};

H2Session::H2Session(Worker& worker, ProxySession& owner, net::Stream& client,
                     std::string_view client_ip, std::string_view proto)
    : worker_(worker), owner_(owner), client_(client), client_ip_(client_ip), proto_(proto) {}

H2Session::~H2Session() {
  streams_.clear();
  dead_.clear();
  if (session_ != nullptr) nghttp2_session_del(session_);
}

void H2Session::start(const H2Start& start) {
  readable_ = start.readable;
  peer_closed_ = start.peer_closed;
  eof_ = start.eof;
  start_ns_ = last_activity_ns_ = worker_.loop().now_ns();
  h2::SessionLimits limits{static_cast<std::uint32_t>(worker_.config().max_streams),
                           kMaxHeaderList};
  limits.stream_window = kStreamWindow;
  // Streams give their window back as the backend takes their body (h2_stream.h).
  session_ = h2::new_server_session(Callbacks::install, this, limits, true);
  if (session_ == nullptr) {
    close();
    return;
  }
  const ssize_t used = nghttp2_session_mem_recv(
      session_, reinterpret_cast<const std::uint8_t*>(start.input.data()), start.input.size());
  if (used < 0) closing_ = true;
  serve_ready();
  advance();
}

void H2Session::on_events(std::uint32_t events) {
  if (closed_) return;
  enter();
  if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) peer_closed_ = true;
  if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) readable_ = true;
  if (events & EPOLLOUT) blocked_ = false;
  if ((events & EPOLLOUT) && read_wants_out_) {
    read_wants_out_ = false;
    readable_ = true;
  }
  if ((events & (EPOLLHUP | EPOLLERR)) && !(events & EPOLLIN)) {
    // A reset: nobody is left to answer (the read below reports it when data came with it).
    readable_ = true;
  }
  advance();
}

void H2Session::on_tick(std::int64_t now_ns) {
  if (closed_) return;
  enter();
  for (auto& [id, stream] : streams_)
    stream->on_tick(now_ns);
  const BalancerConfig& c = worker_.config();
  if (!got_headers_ && now_ns >= start_ns_ + ns(c.header_timeout)) {
    closing_ = true;
    end_session(NGHTTP2_NO_ERROR);
  } else if (streams_.empty() && now_ns >= last_activity_ns_ + ns(c.client_timeout)) {
    if (closing_) {
      close();  // said GOAWAY once; the client did not read it
      return;
    }
    closing_ = true;
    last_activity_ns_ = now_ns;
    end_session(NGHTTP2_NO_ERROR);
  }
  serve_ready();
  advance();
}

void H2Session::shutdown() {
  if (closed_) return;
  closed_ = true;
  for (auto& [id, stream] : streams_) {
    stream->on_closed();
    dead_.push_back(std::move(stream));
  }
  streams_.clear();
}

void H2Session::consume(std::int32_t id, std::size_t bytes) {
  if (bytes > 0 && session_ != nullptr) nghttp2_session_consume_stream(session_, id, bytes);
}

void H2Session::want_service(H2Stream& stream) {
  if (std::find(ready_.begin(), ready_.end(), stream.id()) == ready_.end()) {
    ready_.push_back(stream.id());
  }
}

void H2Session::upstream_entry(H2Stream& stream, std::uint32_t events) {
  if (closed_) return;
  enter();
  stream.handle_upstream_events(events);
  serve_ready();
  advance();
}

// Frees the streams closed since the last entry: none of their code is on the stack now.
void H2Session::enter() {
  dead_.clear();
}

Buffer H2Session::lend_buffer() {
  if (spare_.empty()) return {};
  Buffer buffer = std::move(spare_.back());
  spare_.pop_back();
  return buffer;
}

void H2Session::give_back(Buffer&& buffer) {
  buffer.clear();
  const std::size_t capacity = buffer.tail_room();
  if (capacity > 0 && capacity <= kSpareCapacity && spare_.size() < kSpareBuffers) {
    spare_.push_back(std::move(buffer));
  }
}

H2Stream* H2Session::find(std::int32_t id) {
  auto it = streams_.find(id);
  return it == streams_.end() ? nullptr : it->second.get();
}

void H2Session::stream_closed(std::int32_t id) {
  auto it = streams_.find(id);
  if (it == streams_.end()) return;
  it->second->on_closed();
  dead_.push_back(std::move(it->second));
  streams_.erase(it);
  last_activity_ns_ = worker_.loop().now_ns();
}

// Services the streams that got input (dispatching, forwarding bodies) and those whose client
// took buffered bytes. A stream may answer at once (a local reply), which only queues frames.
// Not reentrant (no stream's service() or pump() enters the session): batch_ is the list being
// walked, ready_ and pump_ take what the walk adds.
void H2Session::serve_ready() {
  while (!closed_ && (!ready_.empty() || !pump_.empty())) {
    batch_.swap(ready_);
    for (std::int32_t id : batch_) {
      if (H2Stream* x = find(id)) x->service();
    }
    batch_.clear();
    batch_.swap(pump_);
    for (std::int32_t id : batch_) {
      if (H2Stream* x = find(id)) x->pump();
    }
    batch_.clear();
  }
}

// Reads and services until nothing more can be done now; the writing is the flush timer's.
void H2Session::advance() {
  if (in_advance_) return;
  in_advance_ = true;
  while (!closed_) {
    if (!ready_.empty() || !pump_.empty()) {
      serve_ready();
      continue;
    }
    if (closing_ || eof_ || !readable_) break;
    // Reading waits while 64 KiB of answers wait for a client that does not read them.
    if (!take() || output_full()) break;
    if (!read_once()) break;
  }
  in_advance_ = false;
  if (!closed_) settle();
}

// After an activation: the iteration's write is due, unless the socket is full (its EPOLLOUT
// brings the session back).
void H2Session::settle() {
  if (!blocked_) worker_.loop().schedule_no_later(flush_timer_, worker_.loop().now_ns());
}

// The flush timer: one write for everything queued since the last one, then what waited for
// it (reading stopped on a full output, streams to pump), or the close when the session is over.
void H2Session::on_flush() {
  if (closed_) return;
  enter();
  if (!flush()) return;
  const bool input = readable_ && !output_full() && !closing_ && !eof_;
  if (input || !ready_.empty() || !pump_.empty()) {
    advance();
    return;
  }
  finish_up();
}

// Moves the frames nghttp2 has ready into out_ while less than the high-water mark waits. False
// when the connection was closed (an nghttp2 error).
bool H2Session::take() {
  if (h2::take_frames(session_, out_, [this] { return output_full(); })) return true;
  close();
  return false;
}

bool H2Session::read_once() {
  char* p = in_.tail(kReadChunk);
  const std::size_t room = in_.tail_room();
  std::size_t n = 0;
  const net::IoStatus status = client_.read(p, room, n);
  if (status == net::IoStatus::Done) {
    if (n < room && !peer_closed_) readable_ = false;
    last_activity_ns_ = worker_.loop().now_ns();
    const ssize_t used =
        nghttp2_session_mem_recv(session_, reinterpret_cast<const std::uint8_t*>(p), n);
    // A fatal error (nghttp2 queued its GOAWAY when it could): write what is queued, then close.
    if (used < 0) closing_ = true;
    return true;
  }
  readable_ = false;
  if (status == net::IoStatus::WouldBlock) {
    read_wants_out_ = client_.wants_write();
    return true;
  }
  if (status == net::IoStatus::Eof) {
    eof_ = true;
    return true;
  }
  close();
  return false;
}

// Takes frames from nghttp2 while little output waits, and writes them, until nghttp2 has
// nothing more or the socket is full. False when the connection was closed.
bool H2Session::flush() {
  for (;;) {
    if (!take()) return false;
    if (out_.empty()) return true;
    std::size_t n = 0;
    const net::IoStatus status = client_.write(out_.data(), out_.size(), n);
    if (status == net::IoStatus::WouldBlock) {
      blocked_ = true;
      return true;
    }
    if (status != net::IoStatus::Done) {
      close();
      return false;
    }
    const bool partial = n < out_.size();
    out_.consume(n);
    last_activity_ns_ = worker_.loop().now_ns();
    if (partial) {
      blocked_ = true;  // the socket is full: EPOLLOUT says when to go on
      return true;
    }
  }
}

// After an activation: close when the session is over (GOAWAY written, nghttp2 done both ways,
// or the client's EOF: HTTP/2 half-closes streams, not connections, so a client that ended its
// side is gone, and the streams it left unanswered are cancelled, not the backends' failures).
void H2Session::finish_up() {
  if (!out_.empty()) return;
  const bool over = !nghttp2_session_want_read(session_) && !nghttp2_session_want_write(session_);
  if (closing_ || over || eof_) close();
}

void H2Session::close() {
  if (closed_) return;
  shutdown();
  owner_.close_connection();
}

// Ends the session with GOAWAY `error_code` (after what is queued); the connection closes once
// it is written.
void H2Session::end_session(std::uint32_t error_code) {
  nghttp2_session_terminate_session(session_, error_code);
  closing_ = true;
}

}  // namespace stampede::balancer
