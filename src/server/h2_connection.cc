#include "server/h2_connection.h"
#include "metrics/exposition.h"
#include "server/deadline.h"
#include "server/metrics.h"

#include <fmt/format.h>
#include <sys/epoll.h>

#include <algorithm>
#include <cstring>

#include "core/clock.h"
#include "h2/server_session.h"
#include "server/connection.h"
#include "server/socket_input.h"
#include "server/worker.h"

namespace stampede::server {

struct H2Connection::Exchange {
  explicit Exchange(std::function<void()> on_delay) : timer(std::move(on_delay)) {}

  std::int32_t id = 0;
  std::string path;  // :path, query included
  bool head_only = false;
  bool refused = false;  // answered 413: the rest of its body is discarded
  bool head_too_large = false;
  std::uint64_t header_bytes = 0;
  std::uint64_t body_bytes = 0;
  std::int64_t completed_ns = 0;
  Target target;
  Decision decision;
  std::string owned;         // a body built for this stream (/count, a refusal)
  std::string_view text;     // the body to send, from `owned` or the worker's Responses
  std::uint64_t filler = 0;  // or: this many filler bytes
  net::Timer timer;
};

namespace {

constexpr std::string_view kTooLarge = "request body too large\n";

using Exchange = H2Connection::Exchange;

nghttp2_nv header(std::string_view name, std::string_view value) {
  return {reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
          reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(),
          value.size(), NGHTTP2_NV_FLAG_NONE};
}

// Hands out the stream's body as the peer's window allows: the text, or filler bytes.
ssize_t read_body(nghttp2_session*, std::int32_t, std::uint8_t* buffer, std::size_t length,
                  std::uint32_t* flags, nghttp2_data_source* source, void*) {
  auto& x = *static_cast<Exchange*>(source->ptr);
  std::size_t n;
  if (!x.text.empty()) {
    n = std::min(length, x.text.size());
    std::memcpy(buffer, x.text.data(), n);
    x.text.remove_prefix(n);
  } else {
    n = static_cast<std::size_t>(std::min<std::uint64_t>(length, x.filler));
    std::memset(buffer, 'x', n);
    x.filler -= n;
  }
  if (x.text.empty() && x.filler == 0) *flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<ssize_t>(n);
}

}  // namespace

// nghttp2's callbacks, each forwarding to the connection (`user`).
struct H2Connection::Callbacks {
  static H2Connection& self(void* user) { return *static_cast<H2Connection*>(user); }

  static Exchange* find(H2Connection& c, std::int32_t id) {
    auto it = c.exchanges_.find(id);
    return it == c.exchanges_.end() ? nullptr : it->second.get();
  }

  static int begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    H2Connection& c = self(user);
    const std::int32_t id = frame->hd.stream_id;
    auto& x = c.exchanges_[id] = std::make_unique<Exchange>([&c, id] { c.on_delay(id); });
    x->id = id;
    return 0;
  }

  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name,
                       std::size_t namelen, const std::uint8_t* value, std::size_t valuelen,
                       std::uint8_t, void* user) {
    H2Connection& c = self(user);
    Exchange* x = find(c, frame->hd.stream_id);
    if (x == nullptr || x->head_too_large) return 0;
    // RFC 9113 6.5.2's size of a header list: name, value and 32 bytes each.
    x->header_bytes += namelen + valuelen + 32;
    if (x->header_bytes > c.worker_.options().max_header_bytes) {
      x->head_too_large = true;  // an HPACK bomb: small on the wire, huge once decoded
      c.end_session(NGHTTP2_ENHANCE_YOUR_CALM);
      return 0;
    }
    const std::string_view n(reinterpret_cast<const char*>(name), namelen);
    const std::string_view v(reinterpret_cast<const char*>(value), valuelen);
    if (n == ":path") {
      x->path.assign(v);
    } else if (n == ":method") {
      x->head_only = v == "HEAD";
    }
    return 0;
  }

  static int on_data(nghttp2_session*, std::uint8_t, std::int32_t id, const std::uint8_t*,
                     std::size_t length, void* user) {
    H2Connection& c = self(user);
    Exchange* x = find(c, id);
    if (x == nullptr || x->refused) return 0;
    x->body_bytes += length;
    if (x->body_bytes > c.worker_.options().max_body_bytes) c.refuse_body(*x);
    return 0;
  }

  static int on_frame(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    H2Connection& c = self(user);
    const bool ok = h2::note_frame(c.flood_, *frame, c.worker_.loop().now_ns());
    const bool end = (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
    if (frame->hd.type == NGHTTP2_HEADERS) c.got_headers_ = true;
    if (!ok) {
      c.end_session(NGHTTP2_ENHANCE_YOUR_CALM);
      return 0;
    }
    if (end && (frame->hd.type == NGHTTP2_DATA || frame->hd.type == NGHTTP2_HEADERS)) {
      if (Exchange* x = find(c, frame->hd.stream_id)) c.on_request(*x);
    }
    return 0;
  }

  // After a refused body's answer is out, the rest of that body is not wanted.
  static int on_sent(nghttp2_session* session, const nghttp2_frame* frame, void* user) {
    if ((frame->hd.flags & NGHTTP2_FLAG_END_STREAM) == 0) return 0;
    Exchange* x = find(self(user), frame->hd.stream_id);
    if (x != nullptr && x->refused) {
      nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, frame->hd.stream_id, NGHTTP2_NO_ERROR);
    }
    return 0;
  }

  static int on_close(nghttp2_session*, std::int32_t id, std::uint32_t, void* user) {
    H2Connection& c = self(user);
    auto it = c.exchanges_.find(id);
    if (it == c.exchanges_.end()) return 0;
    if (it->second->timer.armed()) {
      c.worker_.loop().cancel(it->second->timer);
      --c.delayed_;
    }
    c.exchanges_.erase(it);
    return 0;
  }

  static int on_invalid(nghttp2_session*, const nghttp2_frame*, int, void* user) {
    H2Connection& c = self(user);
    if (!h2::note_invalid_frame(c.flood_, c.worker_.loop().now_ns()))
      c.end_session(NGHTTP2_ENHANCE_YOUR_CALM);
    return 0;
  }

  static void install(nghttp2_session_callbacks* cb) {
    h2::set_callbacks(cb,
                      {begin_headers, on_header, on_data, on_frame, on_invalid, on_sent, on_close});
  }
};

H2Connection::H2Connection(Worker& worker, Connection& owner)
    : worker_(worker), owner_(owner), deadline_timer_([this] { on_deadline(); }) {}

H2Connection::~H2Connection() {
  release();
}

void H2Connection::start(H2Handover handover) {
  stream_ = handover.stream;
  input_ = handover.socket;
  active_ = true;
  start_ns_ = last_activity_ns_ = worker_.loop().now_ns();
  flood_ = h2::FloodGuard{};
  const h2::SessionLimits limits{worker_.options().max_streams,
                                 static_cast<std::uint32_t>(worker_.options().max_header_bytes)};
  session_ = h2::new_server_session(Callbacks::install, this, limits, false);
  if (session_ == nullptr) {
    close_now();
    return;
  }
  const std::string& in = handover.input;
  const ssize_t used = nghttp2_session_mem_recv(
      session_, reinterpret_cast<const std::uint8_t*>(in.data()), in.size());
  if (used < 0) closing_ = true;
  advance();
}

void H2Connection::on_events(std::uint32_t events) {
  if (!input_.on_events(events)) {
    close_now();
    return;
  }
  advance();
}

void H2Connection::drain() {
  if (!active_) return;
  nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE,
                        nghttp2_session_get_last_proc_stream_id(session_), NGHTTP2_NO_ERROR,
                        nullptr, 0);
  advance();
}

void H2Connection::release() {
  worker_.loop().cancel(deadline_timer_);
  exchanges_.clear();  // their timers cancel themselves
  if (session_ != nullptr) nghttp2_session_del(session_);
  session_ = nullptr;
  stream_ = nullptr;
  std::string().swap(out_);
  out_sent_ = delayed_ = 0;
  input_ = SocketInput{};
  active_ = got_headers_ = closing_ = false;
  ++generation_;
}

// Reads and answers what it can, writes, then closes when the session is over.
void H2Connection::advance() {
  for (int reads = 0; active_; ++reads) {
    if (!flush()) return;
    if (output_full() || closing_ || !input_.unread) break;
    if (reads == kReadsPerActivation) {
      worker_.loop().defer([this, generation = generation_] {
        if (generation == generation_) advance();
      });
      break;
    }
    if (!read_once()) return;
  }
  if (active_) finish_up();
}

bool H2Connection::read_once() {
  char* data = worker_.scratch_in();
  std::size_t n = 0;
  const net::IoStatus status = input_.read(*stream_, data, worker_.scratch_in_size(), n);
  if (status == net::IoStatus::Error) {
    close_now();
    return false;
  }
  if (status != net::IoStatus::Done) return true;
  last_activity_ns_ = worker_.loop().now_ns();
  const ssize_t used =
      nghttp2_session_mem_recv(session_, reinterpret_cast<const std::uint8_t*>(data), n);
  // A fatal error (nghttp2 queued its GOAWAY when it could): write what is queued, then close.
  if (used < 0) closing_ = true;
  return true;
}

// Takes frames from the session while little output waits, and writes them, until the session
// has nothing more or the socket is full. False when the connection was closed.
bool H2Connection::flush() {
  for (;;) {
    if (!h2::take_frames(session_, out_, [this] { return output_full(); })) {
      close_now();
      return false;
    }
    if (out_sent_ == out_.size()) return true;
    std::size_t n = 0;
    const net::IoStatus status =
        stream_->write(out_.data() + out_sent_, out_.size() - out_sent_, n);
    if (status == net::IoStatus::Error) {
      close_now();
      return false;
    }
    if (status != net::IoStatus::Done) return true;
    if (n > 0) {
      last_activity_ns_ = worker_.loop().now_ns();
      WorkerCounters::add(worker_.counters().bytes_written, std::uint64_t{n});
    }
    out_sent_ += n;
    if (out_sent_ < out_.size()) return true;  // the socket is full: wait for EPOLLOUT
    out_.clear();
    out_sent_ = 0;
  }
}

// After an activation: close when the session is over, else make sure a timer comes back.
void H2Connection::finish_up() {
  const bool written = out_sent_ == out_.size();
  const bool over = !nghttp2_session_want_read(session_) && !nghttp2_session_want_write(session_);
  if (written && (closing_ || over || input_.eof)) {
    close_now();
    return;
  }
  if (input_.eof && !written) closing_ = true;
  arm_deadline();
}

void H2Connection::close_now() {
  active_ = false;
  worker_.close(owner_);  // calls release()
}

// Ends the session with GOAWAY `error_code` (after what is queued); the connection closes once
// it is written.
void H2Connection::end_session(std::uint32_t error_code) {
  nghttp2_session_terminate_session(session_, error_code);
}

void H2Connection::on_deadline() {
  if (!active_) return;
  if (!deadline_reached(worker_.loop(), deadline_timer_, deadline())) return;
  if (!closing_) {
    // One attempt to say why, then close whatever the peer does.
    end_session(NGHTTP2_NO_ERROR);
    closing_ = true;
    if (!flush()) return;
  }
  close_now();
}

void H2Connection::arm_deadline() {
  arm_deadline_timer(worker_.loop(), deadline_timer_, deadline());
}

// The header timeout until a first complete HEADERS, then the idle timeout unless an answer
// waits for its delay (and nothing waits for the socket).
std::int64_t H2Connection::deadline() const {
  const ServerOptions& o = worker_.options();
  if (!got_headers_) return start_ns_ + o.header_timeout.count();
  if (delayed_ > 0 && out_sent_ == out_.size()) return kNoDeadline;
  return last_activity_ns_ + o.idle_timeout.count();
}

// A stream's request is complete: the same rule as HTTP/1.1 (decision.h).
void H2Connection::on_request(Exchange& x) {
  if (x.refused || x.head_too_large) return;
  x.completed_ns = worker_.loop().now_ns();
  const std::string_view path = x.path;
  const std::size_t q = path.find('?');
  x.target = read_target(path.substr(0, q),
                         q == std::string_view::npos ? std::string_view() : path.substr(q + 1));
  if (x.target.kind != Kind::Normal || !x.target.bad_override.empty()) {
    answer(x);
    return;
  }
  x.decision = decide(x.target, worker_);
  if (x.decision.delay_ns > 0) {
    ++delayed_;
    worker_.loop().schedule(x.timer, x.completed_ns + x.decision.delay_ns);
    return;
  }
  answer(x);
}

void H2Connection::on_delay(std::int32_t stream_id) {
  auto it = exchanges_.find(stream_id);
  if (it == exchanges_.end()) return;
  --delayed_;
  answer(*it->second);
  advance();
}

void H2Connection::answer(Exchange& x) {
  const Responses& responses = worker_.responses();
  WorkerCounters& counters = worker_.counters();
  switch (x.target.kind) {
    case Kind::Reset:
      worker_.shared().reset_served();
      [[fallthrough]];
    case Kind::Count: {
      char buffer[256];
      x.owned.assign(responses.count_json(buffer, worker_.shared().served()));
      x.text = x.owned;
      submit(x, 200, "application/json");
      return;
    }
    case Kind::Metrics:
      x.owned = render_metrics(worker_.shared());
      x.text = x.owned;
      submit(x, 200, metrics::kContentType);
      return;
    case Kind::Normal:
      break;
  }
  if (!x.target.bad_override.empty()) {
    WorkerCounters::add(counters.bad_requests, std::uint64_t{1});
    x.owned.assign(x.target.bad_override).push_back('\n');
    x.text = x.owned;
    submit(x, 400, "text/plain");
    return;
  }
  const int status = x.decision.status;
  const auto& size = x.target.overrides.size;
  if (Responses::has_body(status)) {
    if (size) {
      x.filler = *size;
    } else {
      x.text = responses.body_for(status);
    }
  }
  if (status >= 400) WorkerCounters::add(counters.errors, std::uint64_t{1});
  counters.count_status(status);
  // Service time: from the complete request to its answer queued on the session.
  WorkerCounters::add(counters.service_ns, mono_ns() - x.completed_ns);
  submit(x, status, responses.content_type_for(status, size.has_value()));
}

// A request body over --max-body-bytes: 413 at once; its stream is reset once that is sent.
void H2Connection::refuse_body(Exchange& x) {
  x.refused = true;
  WorkerCounters::add(worker_.counters().bad_requests, std::uint64_t{1});
  if (x.timer.armed()) {
    worker_.loop().cancel(x.timer);
    --delayed_;
  }
  x.text = kTooLarge;
  x.filler = 0;
  submit(x, 413, "text/plain");
}

bool H2Connection::submit(Exchange& x, int status, std::string_view content_type) {
  const Responses& responses = worker_.responses();
  const std::uint64_t length = x.filler + x.text.size();
  char status_text[8];
  char length_text[24];
  const std::string_view status_view(
      status_text, fmt::format_to_n(status_text, sizeof status_text, "{}", status).size);
  const std::string_view length_view(
      length_text, fmt::format_to_n(length_text, sizeof length_text, "{}", length).size);
  nghttp2_nv nv[5] = {header(":status", status_view), header("date", responses.date())};
  std::size_t count = 2;
  if (Responses::has_body(status)) {
    nv[count++] = header("content-type", content_type);
    nv[count++] = header("content-length", length_view);
  }
  if (!responses.id().empty()) nv[count++] = header("x-instance", responses.id());
  if (x.head_only) {
    x.text = {};
    x.filler = 0;
  }
  nghttp2_data_provider body{};
  body.source.ptr = &x;
  body.read_callback = read_body;
  const bool has_data = x.filler > 0 || !x.text.empty();
  return nghttp2_submit_response(session_, x.id, nv, count, has_data ? &body : nullptr) == 0;
}

}  // namespace stampede::server
