// Poller: the part of an EventLoop that differs between I/O backends (io_backend.h): keeping
// the registered descriptors, waiting for readiness and calling their IoHandlers. The loop owns
// the timers, the posted and deferred work, and decides how long a wait may last.
//
// Contracts every backend keeps (the EventLoop tests run over each):
// - Registration with EPOLLET is edge-triggered: after add(), a handler is called once for the
//   readiness present at add() and again whenever new readiness arrives; without EPOLLET it is
//   called in every dispatch while the descriptor is ready (a listener that accepts a bounded
//   batch sees the rest in the next iteration).
// - After remove(fd), no later wait() reports anything of that registration, so a handler may
//   remove and destroy itself inside its own on_events(). Destroying *another* handler during
//   dispatch still goes through EventLoop::defer(): epoll may hold an event for it collected
//   by the current wait() (the io_uring backend drops those too, but nothing relies on it).
// - Callers remove() a descriptor before closing it. epoll forgets a registration when its
//   descriptor closes; an io_uring poll holds the socket open until remove() (or until the
//   number is registered again, which replaces the forgotten registration).
// Loop thread only, like the EventLoop that owns it.
#pragma once

#include <sys/epoll.h>

#include <cstddef>
#include <cstdint>

#include "core/expected.h"

namespace stampede::net {

// Event masks a handler tests what it was called with against (every backend reports epoll's
// flags): input or its end to read; room to write (or an error to find by writing); the peer's
// side gone.
inline constexpr std::uint32_t kReadEvents = EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR;
inline constexpr std::uint32_t kWriteEvents = EPOLLOUT | EPOLLERR | EPOLLHUP;
inline constexpr std::uint32_t kHangupEvents = EPOLLRDHUP | EPOLLHUP | EPOLLERR;

class IoHandler;
class UringChannel;

class Poller {
 public:
  virtual ~Poller() = default;
  virtual Expected<void> add(int fd, std::uint32_t events, IoHandler* handler) = 0;
  virtual Expected<void> modify(int fd, std::uint32_t events, IoHandler* handler) = 0;
  virtual void remove(int fd) = 0;
  // The descriptor is about to be closed: what remove() does, where the close would not do it by
  // itself. epoll forgets a descriptor when it closes, so its forget() costs nothing (no
  // epoll_ctl per closed connection); an io_uring poll must be cancelled.
  virtual void forget(int fd) { remove(fd); }
  // Waits at most `timeout_ns` (< 0: no bound; 0: do not block) for readiness and collects it.
  virtual void wait(std::int64_t timeout_ns) = 0;
  // Calls the handlers of what the last wait() collected.
  virtual void dispatch() = 0;
  // The receive channel of a plain TCP socket (uring_channel.h), or null where the backend reads
  // by readiness (epoll). The caller closes it with close_channel() before closing `fd`.
  virtual UringChannel* open_channel(int) { return nullptr; }
  virtual void close_channel(UringChannel*) {}
  // Channels not freed yet (closed ones wait for their final completion).
  virtual std::size_t live_channels() const { return 0; }
};

}  // namespace stampede::net
