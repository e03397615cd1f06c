#include "ws/session.h"

#include <wslay/wslay.h>

#include <algorithm>
#include <cstring>

namespace stampede::ws {

// wslay's callbacks, with the Session as user data.
struct Session::Callbacks {
  // Hands wslay what feed() was given; "would block" once that is used up.
  static ssize_t recv(wslay_event_context_ptr ctx, std::uint8_t* buffer, std::size_t length, int,
                      void* user) {
    auto* s = static_cast<Session*>(user);
    if (s->in_left_ == 0) {
      wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
      return -1;
    }
    const std::size_t n = std::min(length, s->in_left_);
    std::memcpy(buffer, s->in_, n);
    s->in_ += n;
    s->in_left_ -= n;
    return static_cast<ssize_t>(n);
  }

  // Frames go to the output buffer; the connection writes them to its transport.
  static ssize_t send(wslay_event_context_ptr, const std::uint8_t* data, std::size_t length, int,
                      void* user) {
    auto* s = static_cast<Session*>(user);
    s->out_.append(reinterpret_cast<const char*>(data), length);
    return static_cast<ssize_t>(length);
  }

  // Client frames are masked (RFC 6455 5.3). The key needs no cryptographic strength here:
  // it protects proxies from a hostile script, and the payload is the user's own text.
  static int genmask(wslay_event_context_ptr, std::uint8_t* buffer, std::size_t length,
                     void* user) {
    auto* s = static_cast<Session*>(user);
    for (std::size_t i = 0; i < length; i += 8) {
      const std::uint64_t bits = s->random_.next();
      std::memcpy(buffer + i, &bits, std::min<std::size_t>(8, length - i));
    }
    return 0;
  }

  // Text has been checked for UTF-8 by wslay (as it arrives, fragment by fragment: 1007).
  static void on_msg_recv(wslay_event_context_ptr, const wslay_event_on_msg_recv_arg* arg,
                          void* user) {
    auto* s = static_cast<Session*>(user);
    const bool text = arg->opcode == WSLAY_TEXT_FRAME;
    if ((!text && arg->opcode != WSLAY_BINARY_FRAME) || s->local_close_) return;
    const std::string_view payload(reinterpret_cast<const char*>(arg->msg), arg->msg_length);
    s->handler_.on_message(Message{text, payload});
  }
};

Session::Session(Role role, SessionHandler& handler, SessionLimits limits)
    : handler_(handler), role_(role), limits_(limits) {}

Session::~Session() {
  wslay_event_context_free(ctx_);
}

bool Session::reset(std::uint64_t mask_seed) {
  wslay_event_context_free(ctx_);
  ctx_ = nullptr;
  out_.clear();
  out_sent_ = 0;
  failure_ = 0;
  local_close_ = broken_ = own_close_ = false;
  framing_ = Framing{};
  random_ = Random(mask_seed);
  wslay_event_callbacks callbacks{};
  callbacks.recv_callback = &Callbacks::recv;
  callbacks.send_callback = &Callbacks::send;
  callbacks.genmask_callback = &Callbacks::genmask;
  callbacks.on_msg_recv_callback = &Callbacks::on_msg_recv;
  const int rc = role_ == Role::Server ? wslay_event_context_server_init(&ctx_, &callbacks, this)
                                       : wslay_event_context_client_init(&ctx_, &callbacks, this);
  if (rc != 0) {
    ctx_ = nullptr;
    broken_ = true;
    return false;
  }
  wslay_event_config_set_max_recv_msg_length(ctx_, limits_.max_message_bytes);
  return true;
}

namespace {

// A frame header's size from its second byte: 2, the extended length, the masking key.
std::size_t header_size_of(std::uint8_t second) {
  const std::uint8_t length7 = second & 0x7f;
  return 2 + (length7 == 126 ? 2 : length7 == 127 ? 8 : 0) + ((second & 0x80) != 0 ? 4 : 0);
}

// The payload length of a whole header.
std::uint64_t payload_length_of(const std::uint8_t* header) {
  const std::uint8_t length7 = header[1] & 0x7f;
  if (length7 < 126) return length7;
  std::uint64_t length = 0;
  for (std::size_t i = 2; i < (length7 == 126 ? 4u : 10u); ++i)
    length = length << 8 | header[i];
  return length;
}

}  // namespace

// Hands wslay the stream frame by frame (see the header): the bytes of one frame go in one
// call where they arrived together, and each frame's effects are written before the next.
bool Session::feed(const char* data, std::size_t length) {
  if (broken_) return false;
  if (!reading()) return true;
  Framing& f = framing_;
  const char* const end = data + length;
  const char* run = data;  // the bytes from `run` to `p` go to wslay together
  const char* p = data;
  while (p < end) {
    if (f.held_size != 0) {  // the rest of a control frame's payload
      const std::size_t n =
          std::min(static_cast<std::size_t>(end - p), f.held_size - f.held_length);
      std::memcpy(f.held + f.held_length, p, n);
      f.held_length += n;
      run = p += n;
      if (f.held_length < f.held_size) break;
      const std::size_t whole = f.held_size;
      f.held_size = f.held_length = 0;
      if (!hand(f.held, whole)) return !broken_;
      continue;
    }
    if (f.payload_left > 0) {
      const auto n = static_cast<std::size_t>(
          std::min<std::uint64_t>(static_cast<std::uint64_t>(end - p), f.payload_left));
      p += n;
      f.payload_left -= n;
      if (f.payload_left == 0 && !hand(run, static_cast<std::size_t>(p - run))) return !broken_;
      if (f.payload_left == 0) run = p;
      continue;
    }
    // A header: read in place when it is here whole (the usual case), else gathered.
    const auto* header = reinterpret_cast<const std::uint8_t*>(p);
    if (f.header_length == 0 && end - p >= 2 &&
        static_cast<std::size_t>(end - p) >= header_size_of(header[1])) {
      p += header_size_of(header[1]);
    } else if (gather_header(p, end)) {
      header = f.header;
    } else {
      break;
    }
    f.payload_left = payload_length_of(header);
    const std::uint8_t opcode = header[0] & 0x0f;
    if (opcode == WSLAY_CONNECTION_CLOSE && f.payload_left == 1) {
      // A close payload starts with a 2-byte code (RFC 6455 5.5.1); wslay takes 1 byte as none.
      refuse_frames(kCloseProtocolError);
      return true;
    }
    const bool control = (opcode & 0x08) != 0;
    if (control && f.payload_left <= sizeof f.held &&
        f.payload_left > static_cast<std::uint64_t>(end - p)) {
      f.held_size = static_cast<std::size_t>(f.payload_left);
      f.payload_left = 0;
      if (!hand(run, static_cast<std::size_t>(p - run))) return !broken_;  // the header alone
      run = p;
      continue;
    }
    if (f.payload_left == 0) {
      if (!hand(run, static_cast<std::size_t>(p - run))) return !broken_;
      run = p;
    }
  }
  if (p > run) hand(run, static_cast<std::size_t>(p - run));
  return !broken_;
}

// Gathers the header of the peer's current frame from [p, end) when it comes split across
// reads, advancing p; true once it is whole in framing_.header.
bool Session::gather_header(const char*& p, const char* end) {
  Framing& f = framing_;
  while (p < end) {
    f.header[f.header_length++] = static_cast<std::uint8_t>(*p++);
    if (f.header_length == 2) f.header_size = header_size_of(f.header[1]);
    if (f.header_length < f.header_size) continue;
    f.header_length = 0;
    f.header_size = 2;
    return true;
  }
  return false;
}

// Hands wslay `length` bytes of the stream (never past the end of a frame) and writes what they
// produced. False once reading stopped (or the session broke).
bool Session::hand(const char* data, std::size_t length) {
  if (length == 0) return true;
  in_ = data;
  in_left_ = length;
  in_feed_ = true;
  const int rc = wslay_event_recv(ctx_);
  in_feed_ = false;
  in_ = nullptr;
  in_left_ = 0;
  if (rc == WSLAY_ERR_CALLBACK_FAILURE) {
    // Our recv callback never fails, so this is wslay's frame layer refusing the bytes (a
    // fragmented or long control frame, a bad length). wslay would close without a code.
    refuse_frames(kCloseProtocolError);
    return false;
  }
  if (rc != 0) {
    broken_ = true;
    return false;
  }
  pump_output();
  if (reading()) return true;
  // wslay stopped reading without a close from the peer or from us: it refused the input and
  // queued a close with the reason's code (sent by pump_output just now).
  if (!broken_ && failure_ == 0 && !close_received() && !local_close_) {
    failure_ = wslay_event_get_status_code_sent(ctx_);
  }
  return false;
}

bool Session::send(const Message& message) {
  if (broken_ || local_close_ || ctx_ == nullptr) return false;
  wslay_event_msg msg{};
  msg.opcode = message.text ? WSLAY_TEXT_FRAME : WSLAY_BINARY_FRAME;
  msg.msg = reinterpret_cast<const std::uint8_t*>(message.payload.data());
  msg.msg_length = message.payload.size();
  if (wslay_event_queue_msg(ctx_, &msg) != 0) return false;
  if (!in_feed_) pump_output();
  return true;
}

void Session::close(std::uint16_t code, std::string_view reason) {
  if (broken_ || local_close_ || ctx_ == nullptr) return;
  local_close_ = true;
  reason = reason.substr(0, std::min<std::size_t>(reason.size(), 123));
  wslay_event_queue_close(ctx_, code, reinterpret_cast<const std::uint8_t*>(reason.data()),
                          reason.size());
  if (!in_feed_) pump_output();
}

// Stops reading and writing through wslay and appends our own close frame with `code`, unless
// ours was already queued (a second close frame would break the protocol in turn).
void Session::refuse_frames(std::uint16_t code) {
  wslay_event_shutdown_read(ctx_);
  wslay_event_shutdown_write(ctx_);
  if (local_close_) return;
  failure_ = code;
  own_close_ = true;
  const char payload[2] = {static_cast<char>(code >> 8), static_cast<char>(code & 0xff)};
  out_ += static_cast<char>(0x88);
  if (role_ == Role::Server) {
    out_ += static_cast<char>(2);
    out_.append(payload, 2);
    return;
  }
  out_ += static_cast<char>(0x80 | 2);
  char mask[4];
  Callbacks::genmask(ctx_, reinterpret_cast<std::uint8_t*>(mask), sizeof mask, this);
  out_.append(mask, 4);
  out_ += static_cast<char>(payload[0] ^ mask[0]);
  out_ += static_cast<char>(payload[1] ^ mask[1]);
}

void Session::consume_output(std::size_t n) {
  out_sent_ += n;
  if (out_sent_ >= out_.size()) {
    out_.clear();
    out_sent_ = 0;
  }
}

void Session::pump_output() {
  if (wslay_event_send(ctx_) != 0) broken_ = true;
}

bool Session::reading() const {
  return !broken_ && ctx_ != nullptr && wslay_event_get_read_enabled(ctx_) != 0 &&
         !close_received();
}

bool Session::close_received() const {
  return ctx_ != nullptr && wslay_event_get_close_received(ctx_) != 0;
}

bool Session::close_sent() const {
  return broken_ || own_close_ || (ctx_ != nullptr && wslay_event_get_close_sent(ctx_) != 0);
}

std::uint16_t Session::received_code() const {
  return ctx_ != nullptr ? wslay_event_get_status_code_received(ctx_) : kCloseAbnormal;
}

}  // namespace stampede::ws
