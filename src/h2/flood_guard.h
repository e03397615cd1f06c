// FloodGuard: counts the frames a peer can send at no cost to itself but not to us (SETTINGS,
// PING, RST_STREAM — the "rapid reset" of CVE-2023-44487 —, empty DATA frames, and the frames
// nghttp2 answers with a RST_STREAM of ours, such as a HEADERS frame with an empty header block
// on each new stream: the "reset flood" of CVE-2019-9514) over one-second windows. Past the limit
// of any kind the session should end with GOAWAY ENHANCE_YOUR_CALM. Time is given by the caller
// (monotonic ns), so tests need no clock. One per session; the session's thread only.
#pragma once

#include <array>
#include <cstdint>

namespace stampede::h2 {

// Invalid: a frame nghttp2 rejects with a stream error (its on_invalid_frame_recv callback).
enum class Costly : std::uint8_t { Settings, Ping, Reset, Empty, Invalid };

struct FloodLimits {
  // Of each kind. Below nghttp2's own bound of 1000 queued ACKs, so a PING or SETTINGS flood
  // gets our GOAWAY before the library gives up on the session without one.
  std::uint32_t per_second = 500;
};

class FloodGuard {
 public:
  explicit FloodGuard(FloodLimits limits = {}) : limits_(limits) {}

  // Notes one frame of `kind` at `now_ns`. False once the peer went over the limit in the
  // current one-second window (and for every frame after that: the session is ending).
  bool note(Costly kind, std::int64_t now_ns);
  bool flooded() const { return flooded_; }

 private:
  static constexpr std::int64_t kWindowNs = 1'000'000'000;
  FloodLimits limits_;
  std::array<std::uint32_t, 5> counts_{};
  std::int64_t window_start_ns_ = 0;
  bool started_ = false;
  bool flooded_ = false;
};

}  // namespace stampede::h2
