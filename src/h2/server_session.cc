#include "h2/server_session.h"

namespace stampede::h2 {

nghttp2_session* new_server_session(InstallCallbacks install, void* user,
                                    const SessionLimits& limits, bool manual_window) {
  nghttp2_session_callbacks* callbacks = nullptr;
  if (nghttp2_session_callbacks_new(&callbacks) != 0) return nullptr;
  install(callbacks);
  const OptionPtr option = make_options(limits);
  if (option != nullptr && manual_window) nghttp2_option_set_no_auto_window_update(option.get(), 1);
  nghttp2_session* session = nullptr;
  const bool made = option != nullptr &&
                    nghttp2_session_server_new2(&session, callbacks, user, option.get()) == 0;
  nghttp2_session_callbacks_del(callbacks);
  if (!made) return nullptr;
  if (submit_settings(session, limits) != 0) {
    nghttp2_session_del(session);
    return nullptr;
  }
  return session;
}

void set_callbacks(nghttp2_session_callbacks* callbacks, const ServerCallbacks& wanted) {
  nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, wanted.begin_headers);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, wanted.header);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, wanted.data_chunk);
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, wanted.frame_recv);
  nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(callbacks,
                                                               wanted.invalid_frame_recv);
  nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, wanted.frame_send);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, wanted.stream_close);
}

bool note_frame(FloodGuard& guard, const nghttp2_frame& frame, std::int64_t now_ns) {
  const nghttp2_frame_hd& hd = frame.hd;
  const bool ack = (hd.flags & NGHTTP2_FLAG_ACK) != 0;
  const bool end = (hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
  switch (hd.type) {
    case NGHTTP2_SETTINGS:
      return ack || guard.note(Costly::Settings, now_ns);
    case NGHTTP2_PING:
      return ack || guard.note(Costly::Ping, now_ns);
    case NGHTTP2_RST_STREAM:
      return guard.note(Costly::Reset, now_ns);
    case NGHTTP2_DATA:
      // padlen counts the Pad Length field too: what is left is the data.
      return hd.length > frame.data.padlen || end || guard.note(Costly::Empty, now_ns);
    default:
      return true;
  }
}

}  // namespace stampede::h2
