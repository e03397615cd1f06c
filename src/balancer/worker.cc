#include "balancer/worker.h"

#include <errno.h>
#include <sys/epoll.h>

#include <algorithm>

#include "balancer/proxy_session.h"
#include "balancer/session_limits.h"
#include "balancer/upstream.h"
#include "net/socket.h"
#include "net/tcp_stream.h"
#include "tls/stream.h"

namespace stampede::balancer {
namespace {

constexpr std::int64_t kAcceptRetryNs = 100'000'000;  // after EMFILE and the like

}  // namespace

void LocalReplies::count(int status) {
  for (std::size_t i = 0; i < std::size(kStatuses); ++i) {
    if (kStatuses[i] == status) {
      counts[i].store(counts[i].load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      return;
    }
  }
}

// A listening socket on the worker's loop (edge-triggered: accept until EAGAIN).
class Worker::Listener final : public net::IoHandler {
 public:
  Listener(Worker& worker, net::Fd fd, bool admin)
      : worker_(worker), fd_(std::move(fd)), admin_(admin) {}
  ~Listener() {
    if (fd_) worker_.loop().remove(fd_.get());
  }
  Expected<void> start() { return worker_.loop().add(fd_.get(), EPOLLIN | EPOLLET, this); }
  void on_events(std::uint32_t) override { worker_.accept_all(fd_.get(), admin_); }
  int fd() const { return fd_.get(); }

 private:
  Worker& worker_;
  net::Fd fd_;
  bool admin_;
};

Expected<std::unique_ptr<Worker>> Worker::create(WorkerParams params) {
  std::unique_ptr<Worker> worker(new Worker(std::move(params)));
  if (auto r = worker->init(); !r) return r.error();
  return worker;
}

Worker::Worker(WorkerParams params) : params_(std::move(params)) {}

Worker::~Worker() {
  sessions_.clear();
  dead_sessions_.clear();
  dead_conns_.clear();
}

Expected<void> Worker::init() {
  auto loop = net::EventLoop::create(params_.config->io);
  if (!loop) return loop.error();
  loop_ = std::move(*loop);
  for (BackendState* state : params_.states) {
    backends_.push_back(std::make_unique<Backend>(*state));
    backend_ptrs_.push_back(backends_.back().get());
  }
  policy_ =
      make_policy(params_.config->strategy, PolicyParams{backend_ptrs_, params_.seed, nullptr});
  opener_ = params_.opener != nullptr ? params_.opener : &socket_opener_;
  if (params_.listen_fd) {
    listener_ = std::make_unique<Listener>(*this, std::move(params_.listen_fd), false);
    if (auto r = listener_->start(); !r) return r;
  }
  if (params_.admin_fd) {
    admin_listener_ = std::make_unique<Listener>(*this, std::move(params_.admin_fd), true);
    if (auto r = admin_listener_->start(); !r) return r;
  }
  // The sweep enforces every timeout; its period is a tenth of the shortest one, within
  // [1 ms, 100 ms], so a deadline fires at most ~10% late.
  const BalancerConfig& c = *params_.config;
  std::int64_t shortest =
      ns(std::min({c.connect_timeout, c.backend_timeout, c.client_timeout, c.header_timeout}));
  sweep_interval_ns_ = std::clamp<std::int64_t>(shortest / 10, 1'000'000, 100'000'000);
  sweep_timer_ = std::make_unique<net::Timer>([this] { sweep(); });
  loop_->schedule(*sweep_timer_, loop_->now_ns() + sweep_interval_ns_);
  return {};
}

void Worker::run() {
  loop_->run();
}

void Worker::stop() {
  loop_->stop();
}

// Edge-triggered: accepts until EAGAIN. Connections left queued (at --max-connections, or
// after a local resource error) get no new edge: the sweep calls this again.
void Worker::accept_all(int listen_fd, bool admin) {
  if (loop_->now_ns() < accept_paused_until_) return;
  while (admit(admin)) {
    net::IoStatus status;
    net::Fd fd = net::accept_tcp(listen_fd, status);
    if (!fd) {
      if (status == net::IoStatus::WouldBlock) return;
      if (net::is_local_resource_error(errno)) {
        // Out of descriptors or memory: the queued clients wait; retrying at once would spin.
        count_local_error(LocalError::Accept);
        accept_paused_until_ = loop_->now_ns() + kAcceptRetryNs;
        return;
      }
      continue;  // ECONNABORTED and the like concern that one connection only
    }
    if (params_.listen_tls != nullptr && !admin) {
      adopt_secure(
          tls::Stream::create(params_.listen_tls, std::move(fd), tls::Stream::Role::Server));
    } else {
      adopt(std::make_unique<net::TcpStream>(std::move(fd), *loop_), admin);
    }
  }
}

ProxySession* Worker::adopt(std::unique_ptr<net::Stream> stream, bool admin) {
  return keep_session(std::make_unique<ProxySession>(*this, std::move(stream), admin, nullptr));
}

ProxySession* Worker::adopt_secure(std::unique_ptr<tls::Stream> stream) {
  if (!stream) return nullptr;  // the socket is closed already
  const tls::Stream* secure = stream.get();
  return keep_session(std::make_unique<ProxySession>(*this, std::move(stream), false, secure));
}

ProxySession* Worker::keep_session(std::unique_ptr<ProxySession> session) {
  if (!session->start()) return nullptr;  // dropping it closes the stream
  if (params_.open_connections != nullptr) {
    params_.open_connections->fetch_add(1, std::memory_order_relaxed);
  }
  session->set_slot(sessions_.size());
  sessions_.push_back(std::move(session));
  return sessions_.back().get();
}

// Whether another client connection may be accepted now. --max-connections counts every
// client connection; those to --admin-listen are always let in, so the stats stay reachable.
bool Worker::admit(bool admin) {
  if (params_.open_connections == nullptr || admin) return true;
  return params_.open_connections->load(std::memory_order_relaxed) <
         params_.config->max_connections;
}

void Worker::count_local_error(LocalError what) {
  std::atomic<std::uint64_t>& c =
      what == LocalError::Accept ? local_errors_.accept : local_errors_.connect;
  c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

void Worker::count_handshake(HandshakeEnd end) {
  std::atomic<std::uint64_t>* c = &client_tls_.done;
  switch (end) {
    case HandshakeEnd::Done:
      break;
    case HandshakeEnd::Error:
      c = &client_tls_.error;
      break;
    case HandshakeEnd::Closed:
      c = &client_tls_.closed;
      break;
    case HandshakeEnd::Timeout:
      c = &client_tls_.timeout;
      break;
  }
  c->store(c->load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

void Worker::sweep() {
  const std::int64_t now = loop_->update_time();
  // Backwards: a session that closes is swapped with the last one, already visited.
  for (std::size_t i = sessions_.size(); i-- > 0;) {
    if (i < sessions_.size()) sessions_[i]->on_tick(now);
  }
  const std::int64_t cutoff = now - ns(params_.config->pool_idle_timeout);
  for (Backend* b : backend_ptrs_)
    b->expire_idle(cutoff);
  // Connections left queued (out of descriptors, or at --max-connections) get no new edge.
  if (listener_) accept_all(listener_->fd(), false);
  if (admin_listener_) accept_all(admin_listener_->fd(), true);
  loop_->schedule(*sweep_timer_, now + sweep_interval_ns_);
}

void Worker::passive_failure(Backend& backend) {
  if (health_checks_on()) {
    backend.state().set_up(false);
  } else {
    backend.state().eject_until(loop_->now_ns() + ns(params_.config->eject_time));
  }
}

void Worker::retire(std::unique_ptr<UpstreamConn> conn) {
  conn->detach();
  dead_conns_.push_back(std::move(conn));
  schedule_reap();
}

void Worker::close_session(ProxySession* session) {
  const std::size_t slot = session->slot();
  if (slot >= sessions_.size() || sessions_[slot].get() != session) return;
  if (params_.open_connections != nullptr) {
    params_.open_connections->fetch_sub(1, std::memory_order_relaxed);
  }
  dead_sessions_.push_back(std::move(sessions_[slot]));
  if (slot + 1 != sessions_.size()) {
    sessions_[slot] = std::move(sessions_.back());
    sessions_[slot]->set_slot(slot);
  }
  sessions_.pop_back();
  schedule_reap();
}

void Worker::schedule_reap() {
  if (reap_scheduled_) return;
  reap_scheduled_ = true;
  loop_->defer([this] {
    reap_scheduled_ = false;
    dead_sessions_.clear();
    dead_conns_.clear();
    // A session closed: under --max-connections a queued client may take its place now.
    if (params_.open_connections != nullptr && listener_) accept_all(listener_->fd(), false);
  });
}

}  // namespace stampede::balancer
