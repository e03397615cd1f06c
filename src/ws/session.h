// Session: one WebSocket connection's messages over wslay's framing, with our own event loop.
//
// Bytes in (feed), bytes out (output/consume_output): the session never touches a socket, so
// it runs over TCP, TLS or a test's byte strings alike. Whole messages are delivered to the
// handler (wslay assembles fragments); pings are answered and a peer's close is echoed by
// wslay. The peer's bad input closes the session with the RFC's code:
//   unmasked frame from a client (or masked from a server), reserved opcode or RSV bits, bad
//   fragmentation, control frame over 125 bytes, a length not in its shortest form or with
//   the top bit set, bad close code, close payload of 1 byte      -> 1002
//   text message or close reason that is not UTF-8 (text checked as fragments arrive) -> 1007
//   message over SessionLimits::max_message_bytes                 -> 1009
// The outcome does not depend on how the bytes were cut into feed() calls: feed() hands wslay
// one frame at a time and writes what each frame produced (a pong, the handler's replies)
// before the next frame is read, so a reply or a pong is never dropped by a close or a refused
// frame behind it in the same read. A control frame's payload is held back until it is whole
// (at most 125 bytes): wslay 1.1.1 checks a close reason's UTF-8 chunk by chunk, skipping two
// bytes of every chunk, so a close split across reads would be judged from the wrong offset.
//
// Thread: one (the owning connection's). Not copyable or movable (wslay keeps a pointer to it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/random.h"

struct wslay_event_context;

namespace stampede::ws {

// Close codes (RFC 6455 7.4.1) the code here uses.
inline constexpr std::uint16_t kCloseNormal = 1000;
inline constexpr std::uint16_t kCloseGoingAway = 1001;
inline constexpr std::uint16_t kCloseProtocolError = 1002;
inline constexpr std::uint16_t kCloseNoStatus = 1005;  // a close frame without a code
inline constexpr std::uint16_t kCloseAbnormal = 1006;  // no close frame at all
inline constexpr std::uint16_t kCloseInvalidData = 1007;
inline constexpr std::uint16_t kCloseTooBig = 1009;
inline constexpr std::uint16_t kCloseInternalError = 1011;

enum class Role : std::uint8_t { Client, Server };

struct SessionLimits {
  std::uint64_t max_message_bytes = std::uint64_t{16} << 20;
};

// A complete data message; `payload` is valid only during the call.
struct Message {
  bool text = true;
  std::string_view payload;
};

class SessionHandler {
 public:
  // Called from inside Session::feed(), once per data message, in order. May call send() and
  // close() on the session.
  virtual void on_message(const Message& message) = 0;

 protected:
  ~SessionHandler() = default;
};

class Session {
 public:
  Session(Role role, SessionHandler& handler, SessionLimits limits = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // A new connection: a fresh state; buffers keep their capacity. False when out of memory.
  // Until the first reset() the session reads and sends nothing.
  bool reset(std::uint64_t mask_seed = 0);

  // Bytes from the peer. Frames may be split anywhere; messages reach the handler as they
  // complete. False when the session failed beyond a close (out of memory): drop the
  // connection. Bytes after the session stopped reading are ignored.
  bool feed(const char* data, std::size_t length);
  // Queues a data message. False when no more can be sent (a close was queued).
  bool send(const Message& message);
  // Queues a close frame with `code` (and a reason of at most 123 bytes); reading continues
  // until the peer's close. No effect once a close was queued.
  void close(std::uint16_t code, std::string_view reason = {});

  // Frames waiting to be written, oldest first; consume_output(n) once n bytes were written.
  std::string_view output() const { return std::string_view(out_).substr(out_sent_); }
  void consume_output(std::size_t n);

  bool reading() const;                 // still accepts input (no close received, no failure)
  bool close_received() const;          // the peer's close frame arrived
  bool close_sent() const;              // our close frame is in output() (or written)
  std::uint16_t received_code() const;  // the peer's close code (1005 without one)
  // Why we closed because of the peer's input (1002, 1007, 1009), 0 if we did not.
  std::uint16_t failure() const { return failure_; }
  // Nothing more will be received or sent: our close is out (once output() is empty) and the
  // peer's arrived or reading stopped.
  bool done() const { return close_sent() && !reading(); }

 private:
  struct Callbacks;
  // Where the peer's byte stream stands in its current frame (see feed()).
  struct Framing {
    std::uint8_t header[14] = {};    // the frame header's bytes so far
    std::size_t header_length = 0;   // how many of them arrived
    std::size_t header_size = 2;     // the header's size, once its second byte is known
    std::uint64_t payload_left = 0;  // payload bytes of the frame not yet handed to wslay
    char held[125] = {};             // a control frame's payload, held back until whole
    std::size_t held_length = 0;
    std::size_t held_size = 0;  // the held payload's size; 0: nothing held
  };
  bool gather_header(const char*& p, const char* end);
  bool hand(const char* data, std::size_t length);
  void pump_output();
  void refuse_frames(std::uint16_t code);

  SessionHandler& handler_;
  Role role_;
  SessionLimits limits_;
  Random random_;
  wslay_event_context* ctx_ = nullptr;
  const char* in_ = nullptr;  // the bytes feed() is handing to wslay
  std::size_t in_left_ = 0;
  Framing framing_;
  std::string out_;
  std::size_t out_sent_ = 0;
  std::uint16_t failure_ = 0;
  bool local_close_ = false;  // close() was called
  bool broken_ = false;       // wslay failed (memory): nothing more
  bool own_close_ = false;    // refuse_frames() wrote our close frame, not wslay
  bool in_feed_ = false;      // inside wslay_event_recv: output is pumped once it returns
};

}  // namespace stampede::ws
