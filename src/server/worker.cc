#include "server/worker.h"

#include <errno.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "net/tcp_stream.h"
#include "server/http_date.h"
#include "tls/stream.h"

namespace stampede::server {
namespace {

constexpr std::size_t kReadBufferBytes = 64 * 1024;
constexpr int kAcceptsPerEvent = 64;
constexpr std::int64_t kAcceptRetryNs = 100'000'000;  // after EMFILE and the like

// The stream for an accepted socket: TLS under `tls` when it is set, else plain TCP (reading
// through `loop`'s receive channel on io_uring). Null only when OpenSSL is out of memory (the
// socket is closed then).
std::unique_ptr<net::Stream> make_stream(net::Fd fd, SSL_CTX* tls, net::EventLoop& loop) {
  if (tls == nullptr) return std::make_unique<net::TcpStream>(std::move(fd), loop);
  return tls::Stream::create(tls, std::move(fd), tls::Stream::Role::Server);
}

}  // namespace

Expected<std::unique_ptr<Worker>> Worker::create(Shared& shared, int index, net::Fd listener) {
  auto loop = net::EventLoop::create(shared.options.io);
  if (!loop) return loop.error();
  std::unique_ptr<Worker> worker(
      new Worker(shared, index, std::move(loop.value()), std::move(listener)));
  if (!worker->listener_) {
    worker->accepting_ = false;
    return worker;
  }
  // Level-triggered: a bounded accept batch leaves the rest for the next iteration.
  if (auto r = worker->loop_->add(worker->listener_.get(), EPOLLIN, worker.get()); !r) {
    return r.error();
  }
  return worker;
}

Worker::Worker(Shared& shared, int index, std::unique_ptr<net::EventLoop> loop, net::Fd listener)
    : loop_(std::move(loop)),
      shared_(shared),
      counters_(shared.counters[index]),
      listener_(std::move(listener)),
      responses_(shared),
      spread_(shared.options.error_percent),
      scratch_in_(kReadBufferBytes),
      date_timer_([this] { refresh_date(); }),
      accept_timer_([this] {
        if (!draining_ && loop_->add(listener_.get(), EPOLLIN, this)) accepting_ = true;
      }),
      drain_timer_([this] { loop_->stop(); }) {}

Worker::~Worker() = default;

void Worker::run() {
  refresh_date();
  loop_->run();
}

void Worker::drain() {
  loop_->post([this] { begin_drain(); });
}

void Worker::begin_drain() {
  if (draining_) return;
  draining_ = true;
  if (accepting_) loop_->remove(listener_.get());
  accepting_ = false;
  listener_.reset();
  // Backwards: a connection closing itself moves the last one into its slot, already visited.
  for (std::size_t i = live_.size(); i-- > 0;)
    live_[i]->drain();
  if (live_.empty()) {
    loop_->stop();
    return;
  }
  loop_->schedule(drain_timer_, loop_->now_ns() + shared_.options.drain_timeout.count());
}

void Worker::refresh_date() {
  responses_.set_date(wall_seconds());
  loop_->schedule(date_timer_, loop_->update_time() + ns_to_next_wall_second());
}

void Worker::on_events(std::uint32_t) {
  accept_pending();
}

void Worker::accept_pending() {
  for (int i = 0; i < kAcceptsPerEvent && accepting_; ++i) {
    const bool full = at_capacity();
    if (full && shared_.options.over_limit == OverLimit::Queue) {
      // --max-connections: the rest wait in the listen queue (HAProxy's maxconn). A close on
      // this worker resumes at once; the timer covers a slot freed on another worker.
      pause_accepting();
      return;
    }
    net::IoStatus status;
    net::Fd fd = net::accept_tcp(listener_.get(), status);
    if (status == net::IoStatus::WouldBlock) return;
    if (!fd) {
      // Out of descriptors or memory: stop accepting for a moment rather than spin.
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        pause_accepting();
        return;
      }
      continue;  // ECONNABORTED and the like concern that one connection only
    }
    if (full) {
      refuse(std::move(fd));
      continue;
    }
    auto stream = make_stream(std::move(fd), shared_.tls.get(), *loop_);
    if (!stream) continue;  // out of memory for TLS: that connection is dropped
    adopt(std::move(stream));
  }
}

Connection* Worker::adopt(std::unique_ptr<net::Stream> stream) {
  WorkerCounters::add(counters_.connections, std::uint64_t{1});
  if (shared_.options.max_connections > 0) {
    shared_.open_connections.fetch_add(1, std::memory_order_relaxed);
  }
  Connection& c = acquire();
  if (!c.open(std::move(stream))) {
    close(c);
    return nullptr;
  }
  return &c;
}

void Worker::refuse(net::Fd fd) {
  if (shared_.options.over_limit == OverLimit::Reset) {
    // A zero linger turns the close into a reset: the peer's next read or write fails with
    // ECONNRESET, as after a SYN refused by a full backlog under tcp_abort_on_overflow.
    const linger reset{1, 0};
    setsockopt(fd.get(), SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
  }
  WorkerCounters::add(counters_.refused, std::uint64_t{1});
  fd.reset();
}

void Worker::pause_accepting() {
  loop_->remove(listener_.get());
  accepting_ = false;
  loop_->schedule(accept_timer_, loop_->now_ns() + kAcceptRetryNs);
}

bool Worker::at_capacity() const {
  const std::uint32_t cap = shared_.options.max_connections;
  return cap > 0 && shared_.open_connections.load(std::memory_order_relaxed) >= cap;
}

void Worker::resume_accepting() {
  if (accepting_ || draining_ || !listener_) return;
  loop_->cancel(accept_timer_);
  if (loop_->add(listener_.get(), EPOLLIN, this)) accepting_ = true;
}

Connection& Worker::acquire() {
  Connection* c;
  if (free_.empty()) {
    pool_.push_back(std::make_unique<Connection>(*this));
    c = pool_.back().get();
  } else {
    c = free_.back();
    free_.pop_back();
  }
  c->slot = live_.size();
  live_.push_back(c);
  return *c;
}

void Worker::close(Connection& c) {
  loop_->remove(c.fd());
  c.release();
  Connection* last = live_.back();
  live_[c.slot] = last;
  last->slot = c.slot;
  live_.pop_back();
  free_.push_back(&c);
  if (draining_ && live_.empty()) loop_->stop();
  if (shared_.options.max_connections > 0) {
    shared_.open_connections.fetch_sub(1, std::memory_order_relaxed);
    resume_accepting();
  }
}

}  // namespace stampede::server
