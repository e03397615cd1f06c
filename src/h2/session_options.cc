#include "h2/session_options.h"

#include <array>

namespace stampede::h2 {
namespace {

// Streams the peer may reset (or we refuse) before the session is ended; nghttp2's own count.
constexpr std::size_t kMaxOutboundAck = 1000;
// SETTINGS entries per frame: a real peer sends a handful.
constexpr std::size_t kMaxSettingsEntries = 32;

}  // namespace

OptionPtr make_options(const SessionLimits& limits) {
  nghttp2_option* raw = nullptr;
  if (nghttp2_option_new(&raw) != 0) return nullptr;
  OptionPtr option(raw);
  nghttp2_option_set_max_outbound_ack(raw, kMaxOutboundAck);
  nghttp2_option_set_max_settings(raw, kMaxSettingsEntries);
  nghttp2_option_set_max_deflate_dynamic_table_size(raw, limits.header_table);
  return option;
}

int submit_settings(nghttp2_session* session, const SessionLimits& limits) {
  const std::array<nghttp2_settings_entry, 4> entries = {{
      {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, limits.max_streams},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, static_cast<std::uint32_t>(limits.stream_window)},
      {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, limits.max_header_list},
      {NGHTTP2_SETTINGS_HEADER_TABLE_SIZE, limits.header_table},
  }};
  if (int rv = nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, entries.data(), entries.size()))
    return rv;
  return nghttp2_session_set_local_window_size(session, NGHTTP2_FLAG_NONE, 0, kMaxWindow);
}

}  // namespace stampede::h2
