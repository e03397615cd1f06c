// EventLoop: one poller (epoll or io_uring, chosen at create(); io_backend.h) and one timer
// heap, owned and run by exactly one thread.
//
// Contracts:
// - Every method except stop() and post() must be called on the loop's own thread.
// - An IoHandler registered with add() must stay alive until remove() is called for its fd.
//   remove() comes before the descriptor's close (poller.h says why).
//   A handler may remove and destroy itself inside its own on_events(); destroying *another*
//   handler during dispatch must go through defer() so no stale event reaches freed memory.
// - A Timer belongs to its owner; its destructor cancels it. Timers fire after I/O dispatch,
//   in deadline order, with now_ns() already updated.
// - Registrations take epoll masks on either backend; poller.h states the trigger semantics.
// - now_ns() is the monotonic time cached once per iteration (after the wait returns); call
//   update_time() for a fresh reading.
#pragma once

#include <sys/epoll.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "core/expected.h"
#include "net/fd.h"
#include "net/io_backend.h"

namespace stampede::net {

class IoHandler {
 public:
  // `events` is the epoll event mask (EPOLLIN, EPOLLOUT, EPOLLERR, EPOLLHUP, EPOLLRDHUP), on
  // either backend.
  virtual void on_events(std::uint32_t events) = 0;

 protected:
  ~IoHandler() = default;
};

class EventLoop;
class Poller;
class UringChannel;

class Timer {
 public:
  explicit Timer(std::function<void()> on_fire) : on_fire_(std::move(on_fire)) {}
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  bool armed() const { return index_ != kNone; }
  std::int64_t deadline_ns() const { return deadline_; }

 private:
  friend class EventLoop;
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::function<void()> on_fire_;
  EventLoop* loop_ = nullptr;
  std::int64_t deadline_ = 0;
  std::size_t index_ = kNone;
};

class EventLoop {
 public:
  // An Error when `backend` cannot be set up (for Uring: see choose_io_backend(), which a
  // program calls once at start to fall back to epoll with a reason).
  static Expected<std::unique_ptr<EventLoop>> create(IoBackend backend = kDefaultIoBackend);
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  Expected<void> add(int fd, std::uint32_t events, IoHandler* handler);
  Expected<void> modify(int fd, std::uint32_t events, IoHandler* handler);
  void remove(int fd);
  // Call right before closing a registered descriptor instead of remove() (poller.h): free with
  // epoll, a cancelled poll with io_uring.
  void forget(int fd);

  // The receive channel of a plain TCP socket (uring_channel.h; TcpStream::attach() opens it),
  // or null on epoll and where the kernel lacks multishot receive. Close it before `fd`.
  UringChannel* open_channel(int fd);
  void close_channel(UringChannel* channel);
  // Channels not freed yet, closed ones included until their final completion (for tests).
  std::size_t live_channels() const;

  // Arms (or re-arms) `timer` to fire at `deadline_ns` on the monotonic clock.
  void schedule(Timer& timer, std::int64_t deadline_ns);
  // Arms `timer` for `deadline_ns` unless it is armed already for that time or earlier (a
  // connection's one timer serving several deadlines: the earliest wins, a later one waits).
  void schedule_no_later(Timer& timer, std::int64_t deadline_ns) {
    if (!timer.armed() || timer.deadline_ns() > deadline_ns) schedule(timer, deadline_ns);
  }
  void cancel(Timer& timer);
  // Fires the earliest armed timer at once, before its deadline, as if nothing had happened
  // until then (now_ns() is not moved): for code that drives a loop by hand and has nothing to
  // wait for (a fuzz target or a test over in-memory streams), so a backoff or a timeout costs
  // no wall time. False when no timer is armed.
  bool expire_next_timer();

  // Runs until stop() is called. Returns at once if stop() was already called.
  void run();
  // Runs one iteration, waiting at most `max_wait_ns` (0 = poll). Returns false once stopped.
  bool run_once(std::int64_t max_wait_ns);
  // Thread-safe: makes run() return after the current iteration.
  void stop();
  bool stopped() const { return stop_.load(std::memory_order_acquire); }
  // Thread-safe: runs `fn` on the loop thread after the current dispatch.
  void post(std::function<void()> fn);
  // Loop thread only: runs `fn` after the current dispatch batch (deferred destruction).
  void defer(std::function<void()> fn) { deferred_.push_back(std::move(fn)); }
  // Loop thread only: runs `fn` once per iteration, after the I/O events are dispatched and
  // before the timers fire (libuv's "check" phase), so work that is due whenever the loop is
  // awake needs no timer wake-up of its own. An empty function: none.
  void set_after_io(std::function<void()> fn) { after_io_ = std::move(fn); }

  std::int64_t now_ns() const { return now_ns_; }
  std::int64_t update_time();

 private:
  EventLoop(std::unique_ptr<Poller> poller, Fd wake);
  void heap_swap(std::size_t a, std::size_t b);
  void sift_up(std::size_t i);
  void sift_down(std::size_t i);
  void fire_timers();
  void drain_posted();

  class Waker;
  std::unique_ptr<Poller> poller_;
  Fd wake_;
  std::unique_ptr<Waker> waker_;
  std::vector<Timer*> heap_;
  std::vector<std::function<void()>> deferred_;
  std::function<void()> after_io_;
  std::mutex posted_mutex_;
  std::vector<std::function<void()>> posted_;
  std::atomic<bool> has_posted_{false};
  std::atomic<bool> stop_{false};
  std::int64_t now_ns_ = 0;
};

}  // namespace stampede::net
