// H2Peer: an nghttp2 client session (support/h2_client_session.h) over a blocking loopback
// socket to the balancer's HTTP/2 front, for its tests; and raw bytes for what nghttp2 would
// not send or not read (floods, forbidden frames: support/h2_frames.h). Every wait is bounded
// (5 s), sends included (a balancer that stops reading cannot block a test).
//
// Contract: one thread; the object must not move (the session holds its address).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "net/fd.h"
#include "support/h2_client_session.h"

namespace stampede::balancer::testing {

class H2Peer : public stampede::testing::H2ClientSession {
 public:
  // `window`: SETTINGS_INITIAL_WINDOW_SIZE announced (0: the balancer may send no DATA).
  explicit H2Peer(std::uint16_t port, std::uint32_t window = 65535);

  // A request to front.test; a POST carries `body` (possibly empty) as DATA.
  std::int32_t request(std::string_view method, std::string_view path,
                       std::vector<nghttp2_nv> extra = {}, std::string body = {});
  // What the session has queued, preface first.
  std::string take() { return take_output(); }
  bool flush() { return send_raw(take()); }
  // False when the balancer closed or stopped reading for 5 s.
  bool send_raw(std::string_view bytes);
  // Reads and answers (SETTINGS ACKs, WINDOW_UPDATEs) until `done` or EOF or 5 s.
  bool pump(const std::function<bool()>& done);
  // Everything the balancer writes until it closes (or 5 s pass: then `eof` stays false), not
  // given to the session: for a connection the balancer ends, read with goaway_code().
  std::string read_raw_to_eof();

  bool eof = false;

 private:
  net::Fd fd_;
};

// A GET over a fresh h2c connection to `port`: its status (0 when unanswered).
int fresh_get_status(std::uint16_t port);

}  // namespace stampede::balancer::testing
