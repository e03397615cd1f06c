// IoBackend: which kernel interface an EventLoop waits with, chosen once when the loop is
// created (`--io uring|epoll` on the command line).
//
// - Epoll: one epoll instance, each descriptor registered once (epoll_ctl per connection, not
//   per request), waited on with epoll_pwait2.
// - Uring: one io_uring per loop; each descriptor gets one multishot IORING_OP_POLL_ADD, and the
//   submissions of an iteration go to the kernel in the same io_uring_enter that waits. A plain
//   TCP stream reads through one multishot receive into provided buffers instead
//   (uring_channel.h; Linux 6.0); TLS streams and CONNECT tunnels read by readiness.
// Both deliver the same epoll event masks to the same IoHandler (see event_loop.h), so nothing
// above the loop knows which one runs.
//
// choose_io_backend() is for a program's start: it tries io_uring once (a ring may be missing
// from the kernel, or forbidden by seccomp or kernel.io_uring_disabled) and falls back to epoll,
// saying why, so that one line can be printed before any worker starts.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace stampede::net {

enum class IoBackend { Epoll, Uring };

// The backend used when none is asked for (docs/benchmarks.md, "I/O backends", says why).
inline constexpr IoBackend kDefaultIoBackend = IoBackend::Epoll;

// "epoll" or "uring".
std::string_view io_backend_name(IoBackend backend);
// The inverse of io_backend_name; nullopt for anything else.
std::optional<IoBackend> parse_io_backend(std::string_view text);

struct IoBackendChoice {
  IoBackend backend = kDefaultIoBackend;
  // Empty when `backend` is the one asked for and works in full; else why io_uring cannot be
  // used, or used only for readiness, one line without the "stampede: " prefix, e.g.
  // "io_uring unavailable (io_uring_setup: Operation not permitted); using epoll".
  std::string fallback_reason;
};

// Checks that `requested` works in this process (for Uring: sets up and tears down one small
// ring and checks the features the loop needs). Thread-safe; costs a few system calls.
IoBackendChoice choose_io_backend(IoBackend requested);

}  // namespace stampede::net
