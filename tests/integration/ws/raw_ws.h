// A blocking WebSocket client over a raw socket, for sending exact bytes to the test server and
// reading its frames. Every read is bounded by a receive timeout.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "net/fd.h"

namespace stampede::testing {

struct Frame {
  int opcode = -1;
  std::string payload;
  bool masked = false;
  // For a close frame: its code (0 without one).
  int close_code() const;
};

class RawWs {
 public:
  explicit RawWs(std::uint16_t port,
                 std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));
  bool connected() const { return fd_.valid(); }

  bool send(std::string_view bytes);
  // Each send() goes out at once (TCP_NODELAY), for a test that sends a byte at a time.
  void send_at_once();
  // Sends a valid upgrade request for `target` (with `extra` header lines, each ending in \r\n)
  // and reads the answer's head; returns it ("" on timeout or EOF).
  std::string upgrade(std::string_view target = "/", std::string_view extra = "");
  // The upgrade request itself.
  static std::string upgrade_request(std::string_view target = "/", std::string_view extra = "");
  // Reads bytes until `needle`; returns all read so far, leaving nothing buffered past it.
  std::string read_until(std::string_view needle);
  // Reads one frame; nullopt on timeout, EOF or error.
  std::optional<Frame> read_frame();
  // Sends one final, masked frame of `opcode` with `payload`, then reads one frame as
  // read_frame() (nullopt when the send fails too).
  std::optional<Frame> exchange(std::uint8_t opcode, std::string_view payload);
  // True when the peer closed (EOF or reset) with no more bytes, within the timeout.
  bool closed_by_peer();

 private:
  bool fill(std::size_t bytes);  // until buffered_ holds `bytes`; false on timeout/EOF

  net::Fd fd_;
  std::string buffered_;
};

}  // namespace stampede::testing
