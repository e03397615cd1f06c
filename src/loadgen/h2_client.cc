#include "loadgen/h2_client.h"

#include <errno.h>
#include <strings.h>
#include <sys/epoll.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/clock.h"
#include "h2/error_codes.h"
#include "h2/session_options.h"
#include "loadgen/connection_read.h"
#include "loadgen/connector.h"
#include "loadgen/h2_slot.h"
#include "net/poller.h"
#include "tls/stream.h"

namespace stampede::loadgen {

namespace {

constexpr std::string_view kNotH2 = "not HTTP/2";
constexpr std::string_view kGoawayUnprocessed = "GOAWAY unprocessed";
constexpr std::string_view kHeadersTooLarge = "headers too large";
constexpr std::string_view kNoH2Alpn = "no h2 in ALPN";
constexpr std::uint8_t kSettingsType = 0x04;
constexpr std::size_t kFrameTypeOffset = 3;
constexpr std::size_t kMaxQueuedOut = 64 * 1024;     // bytes taken from nghttp2 before a write
constexpr std::uint32_t kLastStreamId = 0x7fffffff;  // 2^31 - 1 (RFC 9113 5.1.1)
constexpr std::uint64_t kFrameHeaderBytes = 9;

H2Client& client_of(void* user) {
  return *static_cast<H2Client*>(user);
}

int frame_recv_cb(nghttp2_session*, const nghttp2_frame* frame, void* user) {
  client_of(user).on_frame(*frame);
  return 0;
}

int begin_headers_cb(nghttp2_session*, const nghttp2_frame* frame, void* user) {
  client_of(user).on_begin_headers(frame->hd.stream_id);
  return 0;
}

int header_cb(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name,
              std::size_t name_length, const std::uint8_t* value, std::size_t value_length,
              std::uint8_t, void* user) {
  return client_of(user).on_header(frame->hd.stream_id,
                                   {reinterpret_cast<const char*>(name), name_length},
                                   {reinterpret_cast<const char*>(value), value_length});
}

int stream_close_cb(nghttp2_session*, std::int32_t stream_id, std::uint32_t code, void* user) {
  client_of(user).on_stream_close(stream_id, code);
  return 0;
}

int data_chunk_cb(nghttp2_session*, std::uint8_t, std::int32_t stream_id, const std::uint8_t* data,
                  std::size_t length, void* user) {
  client_of(user).on_data(stream_id, {reinterpret_cast<const char*>(data), length});
  return 0;
}

ssize_t body_cb(nghttp2_session*, std::int32_t stream_id, std::uint8_t* buffer, std::size_t length,
                std::uint32_t* flags, nghttp2_data_source*, void* user) {
  return client_of(user).read_body(stream_id, buffer, length, flags);
}

// `body`: response bodies are read (HookSet::capture_body); else DATA is only counted.
nghttp2_session_callbacks* make_callbacks(bool body) {
  nghttp2_session_callbacks* callbacks = nullptr;
  if (nghttp2_session_callbacks_new(&callbacks) != 0) return nullptr;
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, frame_recv_cb);
  nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, begin_headers_cb);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, header_cb);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, stream_close_cb);
  if (body) nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, data_chunk_cb);
  return callbacks;
}

H2ServerSettings settings_of(const nghttp2_settings& frame) {
  H2ServerSettings s;
  for (std::size_t i = 0; i < frame.niv; ++i) {
    const nghttp2_settings_entry& e = frame.iv[i];
    if (e.settings_id == NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
      s.max_concurrent_streams = e.value;
    if (e.settings_id == NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE) s.initial_window_size = e.value;
    if (e.settings_id == NGHTTP2_SETTINGS_MAX_FRAME_SIZE) s.max_frame_size = e.value;
  }
  return s;
}

}  // namespace

H2Client::H2Client(const ConnectionContext& context, Connection& connection,
                   std::unique_ptr<net::Connector> connector)
    : context_(context),
      connection_(connection),
      connector_(connector ? std::move(connector) : make_connector(context)),
      callbacks_(make_callbacks(context.hook_set && context.hook_set->capture_body)),
      backoff_timer_([this] {
        state_ = State::Idle;
        fill(/*after_busy=*/true);
      }),
      deadline_timer_([this] { on_deadline(); }),
      generate_timer_([this] {
        generate_paused_ = false;
        fill(/*after_busy=*/true);
      }),
      slots_(std::max<std::uint32_t>(context.streams, 1)) {
  if (context.hook_set && context.hook_set->generates) {
    generated_ = std::make_unique<H2Generated>(context.h2->scheme(), context.h2->authority());
  }
  free_.reserve(slots_.size());
  for (std::size_t i = slots_.size(); i > 0; --i)
    free_.push_back(static_cast<std::uint32_t>(i - 1));
}

H2Client::~H2Client() {
  context_.loop->cancel(backoff_timer_);
  context_.loop->cancel(deadline_timer_);
  context_.loop->cancel(generate_timer_);
  if (session_) nghttp2_session_del(session_);
  if (callbacks_) nghttp2_session_callbacks_del(callbacks_);
}

void H2Client::start() {
  fill(/*after_busy=*/false);
}

void H2Client::stop_sending() {
  held_ = {};
  no_more_ = true;
  if (in_flight_ == 0 && state_ != State::Finished) finish();
}

void H2Client::send_pending() {
  if (!held_.held || state_ == State::Finished) return;
  held_.due = true;
  fill(/*after_busy=*/true);  // while connecting or backing off: taken when that is over
}

bool H2Client::has_room() const {
  if (state_ == State::Idle) return true;
  return state_ == State::Open && !goaway_ && in_flight_ < limit_;
}

// Takes permits while the connection has room: a released held permit first, then due ones; a
// permit not yet due is held (the owner calls send_pending at its time).
void H2Client::fill(bool after_busy) {
  if (state_ == State::Finished) return;
  if (held_.held && held_.due && !generate_paused_ && has_room()) take(held_.take());
  while (can_take()) {
    const SendPermit permit =
        held_.next(*context_.owner, connection_, context_.loop->now_ns(), after_busy);
    if (!permit.send) {
      no_more_ = true;
      break;
    }
    if (held_.held) break;
    take(permit);
  }
  if (state_ == State::Open && !flush()) return;
  if (no_more_ && in_flight_ == 0 && state_ != State::Finished) finish();
}

void H2Client::take(const SendPermit& permit) {
  const std::uint32_t i = free_.back();
  Slot& slot = slots_[i];
  // A request the hook could not make (or HTTP/2 cannot carry) takes no stream.
  if (generated_ && !generate(permit, slot.buffers.request)) return;
  free_.pop_back();
  static_cast<H2SlotState&>(slot) = H2SlotState{};  // the buffers stay: no allocation per request
  slot.generated = generated_ != nullptr;
  if (context_.hook_set) {
    slot.buffers.response.clear();
    slot.buffers.headers.reset(&context_.hook_set->capture_headers);
  }
  slot.used = true;
  slot.index = permit.index;
  slot.intended_ns = permit.at_ns;
  slot.waited = permit.waited_for_connection;
  ++in_flight_;
  if (state_ == State::Idle) {
    open_socket();
    return;
  }
  submit(slot);
}

void H2Client::open_socket() {
  socket_begin_ns_ = mono_ns();
  connected_ns_ = 0;
  if (context_.log) socket_id_ = context_.log->next_connection();
  for (Slot& slot : slots_) {
    if (!slot.used || slot.begin_ns != 0) continue;
    slot.begin_ns = socket_begin_ns_;  // the request that opens the socket: its connect counts
    if (RateStats* rate = context_.stats->rate()) {
      rate->on_sent(slot.intended_ns, slot.begin_ns, slot.waited);
    }
  }
  bool at_once = false;
  const int err = connector_->open(*context_.loop, *this, socket_begin_ns_, at_once);
  stream_ = connector_->stream();
  if (err != 0) {
    lose_connection({}, err);
    return;
  }
  state_ = State::Connecting;
  arm_deadline();
  if (at_once) on_connected();
}

void H2Client::on_connected() {
  connected_ns_ = connector_->connected_ns();
  context_.stats->add_connection(connected_ns_ - socket_begin_ns_);
  if (connector_->has_handshake()) {
    state_ = State::Securing;
    secure();
    return;
  }
  start_session();
}

void H2Client::secure() {
  switch (connector_->handshake()) {
    case net::IoStatus::Done:
      break;
    case net::IoStatus::Error:
      lose_connection({}, connector_->error());
      return;
    default:
      return;  // the next readiness goes on
  }
  context_.stats->add_tls_handshake(connector_->resumed(), mono_ns() - connector_->connected_ns());
  const auto* secure_stream = dynamic_cast<const tls::Stream*>(stream_);
  if (!secure_stream || secure_stream->alpn() != "h2") {
    lose_connection(kNoH2Alpn, 0);
    return;
  }
  // The server's SETTINGS may have come with the handshake's last flight: read at once.
  readable_ = true;
  start_session();
}

void H2Client::start_session() {
  state_ = State::Open;
  h2::SessionLimits limits;
  limits.max_header_list = kMaxHeaderBytes;
  const h2::OptionPtr options = h2::make_options(limits);
  // A generated head under kMaxGeneratedHead encodes to less than twice its size in HPACK:
  // nghttp2's own limit (64 KiB) must not fail a stream H2Generated let through.
  if (options && generated_) {
    nghttp2_option_set_max_send_header_block_length(options.get(), 2 * kMaxGeneratedHead);
  }
  if (!callbacks_ || !options ||
      nghttp2_session_client_new2(&session_, callbacks_, this, options.get()) != 0 ||
      h2::submit_settings(session_, limits) != 0) {
    lose_connection({}, ENOMEM);
    return;
  }
  if (context_.h2_first_stream_id > 1) {
    nghttp2_session_set_next_stream_id(session_,
                                       static_cast<std::int32_t>(context_.h2_first_stream_id));
  }
  for (Slot& slot : slots_) {
    if (slot.used && slot.id == 0) submit(slot);
  }
  if (!flush()) return;
  if (readable_) {
    readable_ = false;
    read_frames(EPOLLIN);
  }
}

void H2Client::submit(Slot& slot) {
  slot.start_ns = mono_ns();
  if (slot.begin_ns == 0) {
    slot.begin_ns = slot.start_ns;
    if (RateStats* rate = context_.stats->rate()) {
      rate->on_sent(slot.intended_ns, slot.begin_ns, slot.waited);
    }
    arm_deadline();
  }
  bool has_body = false;
  if (slot.generated) {
    slot.buffers.request.fields_into(rendered_.fields);
    slot.buffers.body.swap(slot.buffers.request.body);
    has_body = !slot.buffers.body.empty();
  } else {
    context_.h2->render(slot.index, rendered_);
    slot.buffers.body.swap(rendered_.body);
    has_body = context_.h2->has_body();
  }
  nghttp2_data_provider provider{};
  provider.read_callback = body_cb;
  const std::int32_t id =
      nghttp2_submit_request(session_, nullptr, rendered_.fields.data(), rendered_.fields.size(),
                             has_body ? &provider : nullptr, &slot);
  if (id < 0) {
    // Out of memory (used-up stream ids are seen before, below): this socket takes no more
    // streams; our GOAWAY ends the session once the others are done, then a new socket.
    record_failure(slot, {}, EPROTO);
    release(slot);
    goaway_ = true;
    goaway_last_id_ = std::numeric_limits<std::int32_t>::max();
    nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE, 0, NGHTTP2_NO_ERROR, nullptr, 0);
    return;
  }
  slot.id = id;
  if (nghttp2_session_get_next_stream_id(session_) > kLastStreamId) {
    // That was the last id: no new streams here (the next permits wait for a new connection).
    ids_used_up_ = goaway_ = true;
    goaway_last_id_ = std::numeric_limits<std::int32_t>::max();
  }
}

void H2Client::on_events(std::uint32_t events) {
  switch (state_) {
    case State::Connecting:
      if (events & EPOLLIN) readable_ = true;
      if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) {
        if (const int err = connector_->connect_result(); err != 0) {
          lose_connection({}, err);
          return;
        }
        on_connected();
        if (state_ == State::Open) fill(/*after_busy=*/true);
      }
      break;
    case State::Securing:
      secure();
      if (state_ == State::Open) fill(/*after_busy=*/true);
      break;
    case State::Open:
      // TLS: a read that stopped for want of writability goes on when the socket drains.
      if ((events & net::kReadEvents) || ((events & EPOLLOUT) && stream_->wants_write())) {
        read_frames(events);
      } else if (events & EPOLLOUT) {
        pump();
      }
      break;
    default:
      break;
  }
}

bool H2Client::pump() {
  if (!flush()) return false;
  fill(/*after_busy=*/true);
  return state_ == State::Open;
}

void H2Client::read_frames(std::uint32_t events) {
  const ReadEnd end =
      read_available(*stream_, context_, events,
                     [this](const char* data, std::size_t n) { return feed(data, n); });
  switch (end) {
    case ReadEnd::Eof:
      // Bytes that did not even make a frame header: not a server of HTTP/2.
      lose_connection(head_seen_ > 0 && !settings_seen_ ? kNotH2 : std::string_view(), ECONNRESET);
      break;
    case ReadEnd::Error:
      lose_connection({}, stream_->error());
      break;
    case ReadEnd::Stopped:
      break;
    case ReadEnd::Drained:
    case ReadEnd::WouldBlock:
      pump();
      break;
  }
}

bool H2Client::feed(const char* data, std::size_t length) {
  // The server's first frame must be its SETTINGS (RFC 9113 3.4): its type byte tells at once
  // whether the server speaks HTTP/2 at all (an HTTP/1.1 answer starts "HTTP/1.1").
  if (head_seen_ <= kFrameTypeOffset) {
    const std::size_t at = kFrameTypeOffset - head_seen_;
    head_seen_ += length;
    if (at < length && static_cast<std::uint8_t>(data[at]) != kSettingsType) {
      lose_connection(kNotH2, 0);
      return false;
    }
  }
  const ssize_t rv =
      nghttp2_session_mem_recv(session_, reinterpret_cast<const std::uint8_t*>(data), length);
  if (rv < 0) {
    lose_connection({}, EPROTO);
    return false;
  }
  return true;
}

// Writes what nghttp2 has queued (frames, ACKs, window updates); ends the connection when the
// session is over (a GOAWAY's streams are done, or nghttp2 ended it for a protocol error).
bool H2Client::flush() {
  if (ids_used_up_ && in_flight_ == 0) {
    // Sent only now, after the last stream's HEADERS: nghttp2 sends GOAWAY ahead of new streams.
    ids_used_up_ = false;
    nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE, 0, NGHTTP2_NO_ERROR, nullptr, 0);
  }
  for (;;) {
    if (out_pos_ == out_.size()) {
      out_.clear();
      out_pos_ = 0;
      while (out_.size() < kMaxQueuedOut) {
        const std::uint8_t* data = nullptr;
        const ssize_t n = nghttp2_session_mem_send(session_, &data);
        if (n < 0) {
          lose_connection({}, EPROTO);
          return false;
        }
        if (n == 0) break;
        out_.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
      }
      if (out_.empty()) break;
    }
    std::size_t n = 0;
    const net::IoStatus status = stream_->write(out_.data() + out_pos_, out_.size() - out_pos_, n);
    if (status == net::IoStatus::WouldBlock) return true;
    if (status != net::IoStatus::Done) {
      lose_connection({}, stream_->error());
      return false;
    }
    out_pos_ += n;
    context_.stats->add_bytes(0, n);
  }
  if (!nghttp2_session_want_read(session_) && !nghttp2_session_want_write(session_)) {
    lose_connection({}, EPROTO);  // nothing is left in flight after a clean GOAWAY
    return false;
  }
  return true;
}

H2Client::Slot* H2Client::slot_of(std::int32_t stream_id) {
  if (!session_) return nullptr;
  auto* slot = static_cast<Slot*>(nghttp2_session_get_stream_user_data(session_, stream_id));
  return slot && slot->used && slot->id == stream_id ? slot : nullptr;
}

void H2Client::on_frame(const nghttp2_frame& frame) {
  H2Counts& counts = context_.stats->h2();
  switch (frame.hd.type) {
    case NGHTTP2_SETTINGS:
      if ((frame.hd.flags & NGHTTP2_FLAG_ACK) || settings_seen_) break;
      settings_seen_ = true;
      {
        const H2ServerSettings s = settings_of(frame.settings);
        counts.add_settings(s);
        H2Counts own;
        own.server_settings = s;
        limit_ = std::max<std::uint32_t>(1, effective_streams(own, context_.streams));
      }
      break;
    case NGHTTP2_RST_STREAM:
      ++counts.rst_stream[frame.rst_stream.error_code];
      if (Slot* slot = slot_of(frame.hd.stream_id)) {
        slot->reset_by_peer = true;
        slot->reset_code = frame.rst_stream.error_code;
      }
      break;
    case NGHTTP2_GOAWAY:
      ++counts.goaway[frame.goaway.error_code];
      goaway_ = true;
      goaway_last_id_ = frame.goaway.last_stream_id;
      break;
    case NGHTTP2_HEADERS:
    case NGHTTP2_DATA:
      if (frame.hd.type == NGHTTP2_HEADERS && context_.hook_set) {
        if (Slot* slot = slot_of(frame.hd.stream_id); slot && slot->status > 0) {
          slot->final_head = true;  // later HEADERS are trailers
        }
      }
      if ((frame.hd.flags & NGHTTP2_FLAG_END_STREAM) || context_.log) {
        if (Slot* slot = slot_of(frame.hd.stream_id)) {
          slot->bytes += kFrameHeaderBytes + frame.hd.length;
          if (frame.hd.flags & NGHTTP2_FLAG_END_STREAM) slot->ended = true;
        }
      }
      break;
    default:
      break;
  }
}

void H2Client::on_begin_headers(std::int32_t stream_id) {
  if (Slot* slot = slot_of(stream_id); slot && slot->first_byte_ns == 0) {
    slot->first_byte_ns = context_.loop->now_ns();
  }
}

int H2Client::on_header(std::int32_t stream_id, std::string_view name, std::string_view value) {
  Slot* slot = slot_of(stream_id);
  if (!slot) return 0;
  slot->header_bytes += name.size() + value.size();
  if (slot->header_bytes > kMaxHeaderBytes) {
    if (!slot->failed) {
      slot->failed = true;
      slot->fail_name = kHeadersTooLarge;
    }
    return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
  }
  if (name == ":status") {
    int status = 0;
    for (char c : value)
      status = c >= '0' && c <= '9' && status < 1000 ? status * 10 + (c - '0') : 1000;
    // A 1xx is interim: the final status comes in a later HEADERS frame.
    if (status >= 200 && status < 1000) slot->status = status;
    if (context_.hook_set) slot->buffers.headers.reset(&context_.hook_set->capture_headers);
    return 0;
  }
  if (context_.hook_set && !slot->final_head) slot->buffers.headers.add(name, value);
  for (std::size_t i = 0; i < context_.count_headers.size(); ++i) {
    const std::string& counted = context_.count_headers[i];
    if (counted.size() == name.size() &&
        strncasecmp(counted.data(), name.data(), name.size()) == 0) {
      context_.stats->count_header_value(i, value);
    }
  }
  return 0;
}

void H2Client::on_stream_close(std::int32_t stream_id, std::uint32_t) {
  if (Slot* slot = slot_of(stream_id)) {
    complete(*slot);
    arm_deadline();
  }
}

long H2Client::read_body(std::int32_t stream_id, std::uint8_t* buffer, std::size_t length,
                         std::uint32_t* flags) {
  Slot* slot = slot_of(stream_id);
  if (!slot) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
  const std::string& body = slot->buffers.body;
  const std::size_t n = std::min(length, body.size() - slot->body_sent);
  std::memcpy(buffer, body.data() + slot->body_sent, n);
  slot->body_sent += n;
  if (slot->body_sent == body.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<long>(n);
}

// The one place a stream's outcome is decided (see the header for the failure names).
void H2Client::complete(Slot& slot) {
  if (slot.failed) {
    record_failure(slot, slot.fail_name, slot.fail_err);
  } else if (slot.ended && slot.status > 0) {
    const std::int64_t end = mono_ns();
    WorkerStats& stats = *context_.stats;
    const std::int64_t from = context_.paced ? slot.intended_ns : slot.begin_ns;
    // A hook's verdict fails the response under its code (as over HTTP/1.1).
    const std::string_view verdict =
        context_.hook_set ? notify_hook(slot, slot.status, 0, {}, end - from, end - slot.begin_ns)
                          : std::string_view();
    if (verdict.empty()) {
      stats.record_response(slot.status, from, end);
    } else {
      stats.record_custom_error(verdict, slot.status, from, end);
    }
    if (context_.log) log_stream(slot, end, slot.status, verdict, 0);
    stats.record_first_byte(slot.first_byte_ns > 0 ? slot.first_byte_ns - slot.start_ns : 0);
    if (RateStats* rate = stats.rate()) {
      rate->on_completed(end - from, end - slot.begin_ns, end,
                         RateStats::class_of_status(slot.status));
    }
    responded_ = true;
    failures_ = 0;
  } else if (goaway_ && slot.id > goaway_last_id_) {
    record_failure(slot, kGoawayUnprocessed, 0);
  } else if (slot.reset_by_peer) {
    name_ = "RST_STREAM ";
    name_ += h2::error_code_name(slot.reset_code);
    record_failure(slot, name_, 0);
  } else {
    record_failure(slot, {}, EPROTO);
  }
  release(slot);
}

void H2Client::record_failure(Slot& slot, std::string_view name, int err) {
  const std::int64_t end = mono_ns();
  const std::int64_t begun = slot.begin_ns ? slot.begin_ns : end;
  const std::int64_t from = context_.paced ? slot.intended_ns : begun;
  if (name.empty()) {
    context_.stats->record_failure(err, from, end);
  } else {
    context_.stats->record_custom_error(name, 0, from, end);
  }
  if (context_.log) log_stream(slot, end, 0, name, err);
  if (RateStats* rate = context_.stats->rate()) {
    rate->on_completed(end - from, end - begun, end, stats::ErrorClass::Transport);
  }
  if (context_.hook_set) notify_hook(slot, 0, err, name, end - from, end - begun);
}

void H2Client::log_stream(const Slot& slot, std::int64_t end_ns, int status, std::string_view name,
                          int err) {
  LogLine line;
  line.index = slot.index;
  line.connection = socket_id_;
  line.stream = static_cast<std::uint32_t>(slot.id);
  line.intended_ns = context_.paced ? slot.intended_ns : 0;
  line.start_ns = slot.begin_ns != 0 ? slot.begin_ns : end_ns;
  // The stream that opened the socket began at its connect's start (the others at their submit).
  if (slot.begin_ns == socket_begin_ns_ && connected_ns_ != 0) line.connected_ns = connected_ns_;
  line.sent_ns = slot.start_ns;
  if (slot.first_byte_ns != 0) line.first_byte_ns = std::max(slot.first_byte_ns, slot.start_ns);
  line.end_ns = end_ns;
  line.status = status;
  line.err = err;
  line.code = name;
  line.bytes = slot.bytes;
  context_.log->append(line);
}

void H2Client::release(Slot& slot) {
  slot.used = false;
  free_.push_back(static_cast<std::uint32_t>(&slot - slots_.data()));
  --in_flight_;
}

void H2Client::arm_deadline() {
  if (context_.timeout_ns <= 0) return;
  std::int64_t earliest = 0;
  for (const Slot& slot : slots_) {
    if (!slot.used || slot.failed || slot.begin_ns == 0) continue;
    const std::int64_t due = slot.begin_ns + context_.timeout_ns;
    if (earliest == 0 || due < earliest) earliest = due;
  }
  if (earliest == 0) {
    context_.loop->cancel(deadline_timer_);
  } else {
    context_.loop->schedule(deadline_timer_, earliest);
  }
}

// A stream past its timeout is reset (CANCEL) and counted ETIMEDOUT when nghttp2 closes it; a
// connect past it ends the socket.
void H2Client::on_deadline() {
  if (state_ == State::Connecting || state_ == State::Securing) {
    lose_connection({}, ETIMEDOUT);
    return;
  }
  if (state_ != State::Open) return;
  const std::int64_t now = context_.loop->now_ns();
  for (Slot& slot : slots_) {
    if (!slot.used || slot.failed || slot.begin_ns + context_.timeout_ns > now) continue;
    slot.failed = true;
    slot.fail_err = ETIMEDOUT;
    nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, slot.id, NGHTTP2_CANCEL);
  }
  arm_deadline();
  pump();
}

void H2Client::lose_connection(std::string_view name, int err) {
  const bool responded = close_socket();
  for (Slot& slot : slots_) {
    if (!slot.used) continue;
    if (slot.failed) {
      record_failure(slot, slot.fail_name, slot.fail_err);
    } else {
      record_failure(slot, name, err);
    }
    release(slot);
  }
  after_close(responded);
}

bool H2Client::close_socket() {
  context_.loop->cancel(deadline_timer_);
  if (session_) {
    nghttp2_session_del(session_);
    session_ = nullptr;
  }
  const bool responded = responded_;
  if (stream_) connector_->close(responded);
  stream_ = nullptr;
  out_.clear();
  out_pos_ = 0;
  limit_ = 1;
  head_seen_ = 0;
  settings_seen_ = goaway_ = responded_ = readable_ = ids_used_up_ = false;
  goaway_last_id_ = 0;
  state_ = State::Idle;
  return responded;
}

// The next socket: at once after one that carried a response, after a backoff otherwise (a
// server that refuses, resets or does not speak HTTP/2 must not spin a core).
void H2Client::after_close(bool responded) {
  if (no_more_ && in_flight_ == 0) {
    finish();
    return;
  }
  if (responded) {
    fill(/*after_busy=*/true);
    return;
  }
  ++failures_;
  state_ = State::Waiting;
  context_.loop->schedule(backoff_timer_, context_.loop->now_ns() + net::backoff_ns(failures_));
}

void H2Client::finish() {
  context_.loop->cancel(backoff_timer_);
  context_.loop->cancel(generate_timer_);
  generate_paused_ = false;
  close_socket();
  held_ = {};
  state_ = State::Finished;
  context_.owner->on_finished();
}

}  // namespace stampede::loadgen
