#include "net/event_loop.h"

#include <errno.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "core/clock.h"
#include "net/epoll_backend.h"
#include "net/uring_backend.h"

namespace stampede::net {

// The eventfd that stop() and post() write to wake the loop from another thread.
class EventLoop::Waker final : public IoHandler {
 public:
  explicit Waker(int fd) : fd_(fd) {}
  void on_events(std::uint32_t) override {
    std::uint64_t value;
    while (::read(fd_, &value, sizeof value) > 0) {
    }
  }

 private:
  int fd_;
};

Timer::~Timer() {
  if (loop_ && armed()) loop_->cancel(*this);
}

Expected<std::unique_ptr<EventLoop>> EventLoop::create(IoBackend backend) {
  auto poller = backend == IoBackend::Uring ? UringPoller::create() : EpollPoller::create();
  if (!poller) return poller.error();
  Fd wake(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!wake) return make_error(std::string("eventfd: ") + std::strerror(errno));
  std::unique_ptr<EventLoop> loop(new EventLoop(std::move(*poller), std::move(wake)));
  if (auto r = loop->add(loop->wake_.get(), EPOLLIN, loop->waker_.get()); !r) return r.error();
  return loop;
}

EventLoop::EventLoop(std::unique_ptr<Poller> poller, Fd wake)
    : poller_(std::move(poller)),
      wake_(std::move(wake)),
      waker_(std::make_unique<Waker>(wake_.get())),
      now_ns_(mono_ns()) {}

EventLoop::~EventLoop() {
  for (Timer* t : heap_) {
    t->index_ = Timer::kNone;
    t->loop_ = nullptr;
  }
}

Expected<void> EventLoop::add(int fd, std::uint32_t events, IoHandler* handler) {
  return poller_->add(fd, events, handler);
}

Expected<void> EventLoop::modify(int fd, std::uint32_t events, IoHandler* handler) {
  return poller_->modify(fd, events, handler);
}

void EventLoop::remove(int fd) {
  poller_->remove(fd);
}

void EventLoop::forget(int fd) {
  poller_->forget(fd);
}

UringChannel* EventLoop::open_channel(int fd) {
  return poller_->open_channel(fd);
}

void EventLoop::close_channel(UringChannel* channel) {
  poller_->close_channel(channel);
}

std::size_t EventLoop::live_channels() const {
  return poller_->live_channels();
}

void EventLoop::schedule(Timer& timer, std::int64_t deadline_ns) {
  timer.loop_ = this;
  timer.deadline_ = deadline_ns;
  if (timer.armed()) {
    sift_up(timer.index_);
    sift_down(timer.index_);
    return;
  }
  timer.index_ = heap_.size();
  heap_.push_back(&timer);
  sift_up(timer.index_);
}

void EventLoop::cancel(Timer& timer) {
  if (!timer.armed()) return;
  std::size_t i = timer.index_;
  std::size_t last = heap_.size() - 1;
  if (i != last) heap_swap(i, last);
  heap_.pop_back();
  timer.index_ = Timer::kNone;
  if (i < heap_.size()) {
    sift_up(i);
    sift_down(i);
  }
}

void EventLoop::heap_swap(std::size_t a, std::size_t b) {
  std::swap(heap_[a], heap_[b]);
  heap_[a]->index_ = a;
  heap_[b]->index_ = b;
}

void EventLoop::sift_up(std::size_t i) {
  while (i > 0) {
    std::size_t parent = (i - 1) / 2;
    if (heap_[parent]->deadline_ <= heap_[i]->deadline_) break;
    heap_swap(i, parent);
    i = parent;
  }
}

void EventLoop::sift_down(std::size_t i) {
  for (;;) {
    std::size_t smallest = i, l = 2 * i + 1, r = l + 1;
    if (l < heap_.size() && heap_[l]->deadline_ < heap_[smallest]->deadline_) smallest = l;
    if (r < heap_.size() && heap_[r]->deadline_ < heap_[smallest]->deadline_) smallest = r;
    if (smallest == i) return;
    heap_swap(i, smallest);
    i = smallest;
  }
}

void EventLoop::fire_timers() {
  // A timer armed while firing with a deadline already due runs in the next iteration, so a
  // callback that re-arms itself at `now` cannot starve I/O.
  std::int64_t now = now_ns_;
  std::size_t budget = heap_.size();
  while (!heap_.empty() && heap_[0]->deadline_ <= now && budget-- > 0) {
    Timer* t = heap_[0];
    cancel(*t);
    t->on_fire_();
  }
}

bool EventLoop::expire_next_timer() {
  if (heap_.empty()) return false;
  Timer* t = heap_[0];
  cancel(*t);
  t->on_fire_();
  return true;
}

void EventLoop::drain_posted() {
  if (!deferred_.empty()) {
    auto batch = std::move(deferred_);
    deferred_.clear();
    for (auto& fn : batch)
      fn();
  }
  if (!has_posted_.load(std::memory_order_acquire)) return;
  std::vector<std::function<void()>> batch;
  {
    std::lock_guard lock(posted_mutex_);
    batch.swap(posted_);
    has_posted_.store(false, std::memory_order_relaxed);
  }
  for (auto& fn : batch)
    fn();
}

std::int64_t EventLoop::update_time() {
  return now_ns_ = mono_ns();
}

bool EventLoop::run_once(std::int64_t max_wait_ns) {
  if (stopped()) return false;
  std::int64_t timeout = max_wait_ns;
  if (!heap_.empty()) {
    std::int64_t until = heap_[0]->deadline_ - mono_ns();
    if (until < 0) until = 0;
    if (timeout < 0 || until < timeout) timeout = until;
  }
  if (!deferred_.empty()) timeout = 0;
  poller_->wait(timeout);
  update_time();
  poller_->dispatch();
  if (after_io_) after_io_();
  drain_posted();
  fire_timers();
  return !stopped();
}

void EventLoop::run() {
  while (run_once(-1)) {
  }
}

void EventLoop::stop() {
  stop_.store(true, std::memory_order_release);
  std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(wake_.get(), &one, sizeof one);
}

void EventLoop::post(std::function<void()> fn) {
  {
    std::lock_guard lock(posted_mutex_);
    posted_.push_back(std::move(fn));
    has_posted_.store(true, std::memory_order_release);
  }
  std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(wake_.get(), &one, sizeof one);
}

}  // namespace stampede::net
