// The server side of an HTTP/2 connection as the test server (server/h2_connection.h) and the
// balancer's front (balancer/h2_session.h) both open it: an nghttp2 session with our options
// and SETTINGS queued (session_options.h), and the flood guard (flood_guard.h) fed from the
// frames nghttp2 reports.
//
// Contract: the session's thread only. new_server_session() returns an owned session (the
// caller calls nghttp2_session_del) or null when nghttp2 ran out of memory, with nothing
// left to free; `install` sets the caller's callbacks on a callbacks object that lives only
// during the call (nghttp2 copies it), with set_callbacks() for those of ServerCallbacks.
#pragma once

#include <nghttp2/nghttp2.h>

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "h2/flood_guard.h"
#include "h2/session_options.h"

namespace stampede::h2 {

using InstallCallbacks = void (*)(nghttp2_session_callbacks* callbacks);

// The callbacks both servers take from nghttp2, each given (null: not wanted).
struct ServerCallbacks {
  nghttp2_on_begin_headers_callback begin_headers;
  nghttp2_on_header_callback header;
  nghttp2_on_data_chunk_recv_callback data_chunk;
  nghttp2_on_frame_recv_callback frame_recv;
  nghttp2_on_invalid_frame_recv_callback invalid_frame_recv;
  nghttp2_on_frame_send_callback frame_send;
  nghttp2_on_stream_close_callback stream_close;
};
// Sets the callbacks of `wanted` on `callbacks` (an InstallCallbacks's argument); a null one
// stays unset.
void set_callbacks(nghttp2_session_callbacks* callbacks, const ServerCallbacks& wanted);

// `manual_window`: nghttp2 sends no WINDOW_UPDATE by itself; the caller consumes what it
// received (nghttp2_session_consume) when it is done with it.
nghttp2_session* new_server_session(InstallCallbacks install, void* user,
                                    const SessionLimits& limits, bool manual_window);

// Notes a received frame (from on_frame_recv) with the guard when it is one a peer sends at no
// cost: a SETTINGS or PING that is no ACK, a RST_STREAM, a DATA frame with no data that does not
// end its stream (padding is no data: a padded frame with a pad length of 0 is as empty). False
// once the peer flooded: end the session with GOAWAY ENHANCE_YOUR_CALM.
bool note_frame(FloodGuard& guard, const nghttp2_frame& frame, std::int64_t now_ns);

// Notes a frame nghttp2 rejected with a stream error (from on_invalid_frame_recv): each costs us
// a RST_STREAM, and an honest client sends none. False once the peer flooded, as note_frame.
inline bool note_invalid_frame(FloodGuard& guard, std::int64_t now_ns) {
  return guard.note(Costly::Invalid, now_ns);
}

// Moves the frames nghttp2 has ready (mem_send) into `out` (anything with append(const char*,
// size_t)) until it has none or `full()` says enough waits to be written. False on an nghttp2
// error: the session is unusable, close the connection. Inline: it runs for every response.
template <class Out, class Full>
bool take_frames(nghttp2_session* session, Out& out, Full&& full) {
  while (!full()) {
    const std::uint8_t* frames = nullptr;
    const ssize_t n = nghttp2_session_mem_send(session, &frames);
    if (n < 0) return false;
    if (n == 0) return true;
    out.append(reinterpret_cast<const char*>(frames), static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace stampede::h2
