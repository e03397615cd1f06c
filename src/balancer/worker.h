// Worker: one thread's share of the balancer. It owns an event loop, its listening socket(s)
// (the main one TLS with --tls-cert: each accepted socket wrapped in a tls::Stream whose
// handshake the session drives on readiness), its client sessions, its per-worker Backend views (in
// flight, counters, connection pools) and its Policy. Nothing here is touched by another thread
// except through the loop's post()/stop() and the Backend counters the admin endpoint reads (see
// backend.h).
#pragma once

#include <openssl/types.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "balancer/backend.h"
#include "balancer/config.h"
#include "balancer/policy.h"
#include "balancer/upstream_opener.h"
#include "net/event_loop.h"
#include "net/fd.h"
#include "net/stream.h"

namespace stampede::tls {
class Stream;
}

namespace stampede::balancer {

class ProxySession;
class UpstreamConn;
struct Fleet;

// Responses the balancer produced itself, by status (single writer: the worker).
struct LocalReplies {
  static constexpr int kStatuses[] = {400, 408, 413, 414, 431, 501, 502, 503, 504, 505};
  std::atomic<std::uint64_t> counts[std::size(kStatuses)] = {};
  void count(int status);
};

// Failures of the balancer's own resources (descriptors, memory, local ports), which are never
// blamed on a backend (single writer: the worker). Accept: an accept() that failed so (the
// worker then pauses accepting for 100 ms); Connect: a backend connection that could not be
// made so (the request got a 503).
enum class LocalError { Accept, Connect };
struct LocalErrors {
  std::atomic<std::uint64_t> accept{0};
  std::atomic<std::uint64_t> connect{0};
};

// How a TLS handshake on the listener ended. A failure is the client's, never a backend's:
// Error (not TLS at all, no shared version or cipher, a bad record), Closed (the client closed
// or reset mid-handshake), Timeout (not done within --client-timeout of the accept).
enum class HandshakeEnd { Done, Error, Closed, Timeout };
// Their counts (single writer: the worker).
struct ClientTlsCounts {
  std::atomic<std::uint64_t> done{0};
  std::atomic<std::uint64_t> error{0};
  std::atomic<std::uint64_t> closed{0};
  std::atomic<std::uint64_t> timeout{0};
};

struct WorkerParams {
  std::size_t index = 0;
  const BalancerConfig* config = nullptr;
  std::span<BackendState* const> states;
  const Fleet* fleet = nullptr;  // what the admin endpoint reports (all workers)
  net::Fd listen_fd;             // this worker's listener (SO_REUSEPORT when several); none in
                                 // unit tests, which hand the worker client streams (adopt())
  net::Fd admin_fd;              // only worker 0, only with --admin-listen
  // The listener's TLS server context (--tls-cert; the plan owns it); null: plain TCP. The
  // admin listener is always plain.
  SSL_CTX* listen_tls = nullptr;
  std::uint64_t seed = 1;
  // With --max-connections: the client connections open on all workers (the Balancer's).
  std::atomic<int>* open_connections = nullptr;
  // How backend connections are opened; null: the worker's own SocketOpener. Unit tests pass
  // one handing out in-memory streams. Must outlive the worker.
  UpstreamOpener* opener = nullptr;
};

class Worker {
 public:
  static Expected<std::unique_ptr<Worker>> create(WorkerParams params);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Runs the loop on the calling thread until stop(). Thread-safe: stop().
  void run();
  void stop();

  net::EventLoop& loop() { return *loop_; }
  Policy& policy() { return *policy_; }
  UpstreamOpener& opener() { return *opener_; }
  const BalancerConfig& config() const { return *params_.config; }
  const Fleet& fleet() const { return *params_.fleet; }
  std::span<Backend* const> backends() const { return backend_ptrs_; }
  LocalReplies& local_replies() { return local_replies_; }
  const LocalReplies& local_replies() const { return local_replies_; }
  const LocalErrors& local_errors() const { return local_errors_; }
  void count_local_error(LocalError what);
  const ClientTlsCounts& client_tls() const { return client_tls_; }
  void count_handshake(HandshakeEnd end);
  bool health_checks_on() const { return params_.config->health_interval.count() > 0; }

  // A connection to `backend` failed in a way that means it is down (refused, reset, connect
  // timeout): out of rotation at once, for every worker.
  void passive_failure(Backend& backend);

  // A new client connection over `stream`, registered with the loop; null when that failed (the
  // stream is dropped). The worker owns the session; a pointer for tests.
  ProxySession* adopt(std::unique_ptr<net::Stream> stream, bool admin);
  // The same for a connection to the TLS listener: its session runs the handshake first, then
  // ALPN picks HTTP/2 or HTTP/1.1. Null `stream` (OpenSSL out of memory): nothing, null.
  ProxySession* adopt_secure(std::unique_ptr<tls::Stream> stream);

  // Deferred destruction: the object leaves the loop now and is freed after the current
  // dispatch batch, so events already collected for it are ignored, not use-after-free.
  void retire(std::unique_ptr<UpstreamConn> conn);
  void close_session(ProxySession* session);

 private:
  class Listener;
  explicit Worker(WorkerParams params);
  Expected<void> init();
  void accept_all(int listen_fd, bool admin);
  bool admit(bool admin);
  ProxySession* keep_session(std::unique_ptr<ProxySession> session);
  void sweep();
  void schedule_reap();

  WorkerParams params_;
  std::unique_ptr<net::EventLoop> loop_;
  SocketOpener socket_opener_;  // before the connections: their TLS sessions are kept in it
  std::vector<std::unique_ptr<Backend>> backends_;
  std::vector<Backend*> backend_ptrs_;
  std::unique_ptr<Policy> policy_;
  UpstreamOpener* opener_ = nullptr;
  std::unique_ptr<Listener> listener_;
  std::unique_ptr<Listener> admin_listener_;
  std::vector<std::unique_ptr<ProxySession>> sessions_;  // ProxySession::slot() is the index
  std::vector<std::unique_ptr<ProxySession>> dead_sessions_;
  std::vector<std::unique_ptr<UpstreamConn>> dead_conns_;
  std::unique_ptr<net::Timer> sweep_timer_;
  std::int64_t sweep_interval_ns_ = 0;
  bool reap_scheduled_ = false;
  std::int64_t accept_paused_until_ = 0;  // after EMFILE and the like: no accept() before
  LocalReplies local_replies_;
  LocalErrors local_errors_;
  ClientTlsCounts client_tls_;
};

}  // namespace stampede::balancer
