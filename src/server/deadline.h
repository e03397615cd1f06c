// The one deadline timer of a server connection (HTTP/1.1, HTTP/2, WebSocket), kept on the due
// time of the wait the connection is in (its deadline(): header, idle, linger, close).
//
// Contracts:
// - Called on the loop's own thread; `timer` belongs to the connection.
// - kNoDeadline as `due`: the connection waits for nothing; the timer is left as it is.
#pragma once

#include <cstdint>

#include "net/event_loop.h"

namespace stampede::server {

inline constexpr std::int64_t kNoDeadline = INT64_MAX;

// When `timer` fires: true when `due` has come (the caller acts on it); false when there is no
// deadline, or when the connection moved on since and `timer` is re-armed for the later `due`.
inline bool deadline_reached(net::EventLoop& loop, net::Timer& timer, std::int64_t due) {
  if (due == kNoDeadline) return false;
  if (loop.now_ns() < due) {
    loop.schedule(timer, due);
    return false;
  }
  return true;
}

// After progress: arms `timer` for `due` unless it is armed as early already (a later due time
// is caught when the earlier one fires, by deadline_reached).
inline void arm_deadline_timer(net::EventLoop& loop, net::Timer& timer, std::int64_t due) {
  if (due != kNoDeadline) loop.schedule_no_later(timer, due);
}

}  // namespace stampede::server
