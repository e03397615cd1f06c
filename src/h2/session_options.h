// The nghttp2 (1.52) session set-up every stampede HTTP/2 endpoint uses: its options (the
// library's own defences kept on and bounded) and the SETTINGS it announces. Flow-control
// windows are 2^30-1 so that a load test measures the peer, not the window.
//
// Contract: make_options() returns an owning handle (nghttp2_option_del at its end);
// submit_settings() queues our SETTINGS and the connection window update on a new session.
// The session's thread only.
#pragma once

#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <memory>

namespace stampede::h2 {

inline constexpr std::int32_t kMaxWindow = (std::int32_t{1} << 30) - 1;
inline constexpr std::uint32_t kDefaultMaxStreams = 128;
inline constexpr std::uint32_t kMinMaxStreams = 1;
inline constexpr std::uint32_t kMaxMaxStreams = 10000;

struct SessionLimits {
  std::uint32_t max_streams = kDefaultMaxStreams;  // SETTINGS_MAX_CONCURRENT_STREAMS
  std::uint32_t max_header_list = 16 * 1024;       // SETTINGS_MAX_HEADER_LIST_SIZE, enforced
  std::uint32_t header_table = 4096;               // the HPACK table we keep for the peer
  // SETTINGS_INITIAL_WINDOW_SIZE: what the peer may send on one stream before we consume it.
  // The balancer, which forwards request bodies and consumes them as its backend takes them,
  // announces less so that a stream's buffered body stays bounded.
  std::int32_t stream_window = kMaxWindow;
};

struct OptionDeleter {
  void operator()(nghttp2_option* o) const { nghttp2_option_del(o); }
};
using OptionPtr = std::unique_ptr<nghttp2_option, OptionDeleter>;

// Null only when nghttp2 is out of memory.
OptionPtr make_options(const SessionLimits& limits);
// 0, or an nghttp2 error code.
int submit_settings(nghttp2_session* session, const SessionLimits& limits);

}  // namespace stampede::h2
