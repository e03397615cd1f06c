// Backends: the state every worker shares (address, weight, up/down), and each worker's own
// view (requests in flight, counters, latency histogram, pool of idle keep-alive connections).
//
// Threading: one BackendState per configured backend, shared by all workers; its flags are
// relaxed atomics (written by the health checker and by any worker's passive detection, read
// by every pick). One Backend per worker per backend, written only by that worker's thread.
// Its counters are atomics with a single writer so the admin endpoint (on any worker) reads
// them without locks; the histogram is behind a mutex the owner takes once per response.
#pragma once

#include <openssl/ssl.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "balancer/config.h"
#include "net/socket.h"
#include "stats/histogram.h"

namespace stampede::balancer {

class UpstreamConn;

class BackendState {
 public:
  BackendState(std::size_t index, BackendSpec spec, net::Address address);

  std::size_t index() const { return index_; }
  const std::string& name() const { return spec_.name; }
  const std::string& address_text() const { return spec_.address; }
  const net::Address& address() const { return address_; }
  int weight() const { return spec_.weight; }
  // For an https backend: the client context (the Balancer's, shared by every worker) and the
  // host its certificate must name (SNI too). Null for a plain one. Set before workers run.
  SSL_CTX* tls_context() const { return tls_context_; }
  const std::string& tls_host() const { return tls_host_; }
  void set_tls(SSL_CTX* context, std::string host) {
    tls_context_ = context;
    tls_host_ = std::move(host);
  }

  // Takes traffic: up by the health view and not passively ejected at `now_ns`.
  bool live(std::int64_t now_ns) const {
    return up_.load(std::memory_order_relaxed) &&
           now_ns >= ejected_until_ns_.load(std::memory_order_relaxed);
  }
  bool up() const { return up_.load(std::memory_order_relaxed); }
  // Health checker (or passive detection with checks on): flips the up flag.
  void set_up(bool up);
  // Passive detection with checks off: out of rotation until `until_ns`.
  void eject_until(std::int64_t until_ns);
  std::int64_t ejected_until_ns() const {
    return ejected_until_ns_.load(std::memory_order_relaxed);
  }
  // Times the backend went from up to down (health or passive).
  std::uint64_t down_transitions() const {
    return down_transitions_.load(std::memory_order_relaxed);
  }

 private:
  std::size_t index_;
  BackendSpec spec_;
  net::Address address_;
  SSL_CTX* tls_context_ = nullptr;
  std::string tls_host_;
  std::atomic<bool> up_{true};
  std::atomic<std::int64_t> ejected_until_ns_{0};
  std::atomic<std::uint64_t> down_transitions_{0};
};

// Counters of one worker for one backend (single writer: the worker's thread).
struct BackendCounters {
  std::atomic<std::uint64_t> sent{0};           // attempts dispatched (retries included)
  std::atomic<std::uint64_t> responses{0};      // complete responses relayed
  std::atomic<std::uint64_t> failures{0};       // attempts that ended without a full response
  std::atomic<std::uint64_t> bad_responses{0};  // of those: malformed or cut-short responses
  std::atomic<std::uint64_t> retries{0};        // failed attempts re-sent
  std::atomic<std::uint64_t> client_aborts{0};  // attempts abandoned because of the client
  std::atomic<std::int64_t> in_flight{0};
};

// A plain copy of counters, summed over workers for reporting.
struct BackendTotals {
  std::uint64_t sent = 0, responses = 0, failures = 0, bad_responses = 0, retries = 0,
                client_aborts = 0;
  std::int64_t in_flight = 0;
};

class Backend {
 public:
  explicit Backend(BackendState& state);
  ~Backend();
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  BackendState& state() { return state_; }
  const BackendState& state() const { return state_; }
  std::size_t index() const { return state_.index(); }
  const std::string& name() const { return state_.name(); }
  int weight() const { return state_.weight(); }
  bool live(std::int64_t now_ns) const { return state_.live(now_ns); }
  // Requests this worker has on this backend now (what least/p2c/ewma compare).
  std::int64_t in_flight() const { return in_flight_; }

  // An attempt starts / ends. `latency_ns` is recorded only for complete responses.
  void on_start();
  void on_finish(bool ok, std::int64_t latency_ns);
  // An attempt abandoned for the client's sake (it went away, stalled or sent a bad body): it
  // counts as a client abort, never as a failure of the backend.
  void on_cancel();
  // The failed attempt (already counted by on_finish) got a malformed or cut-short response.
  void on_bad_response() { bump(counters_.bad_responses); }
  // An attempt that failed on the balancer's own resources before anything reached the
  // backend: undoes on_start() entirely (not sent, not a failure).
  void on_local_failure();
  void on_retry() { bump(counters_.retries); }

  // Copies counters (any thread) / merges the latency histogram into `into` (any thread).
  void add_totals(BackendTotals& into) const;
  void merge_latency(stats::Histogram& into) const;

  // The connection pool (owner thread only). take_idle() returns the most recently used
  // idle connection or nullptr; put_idle() keeps `conn` unless the pool is full, and then
  // hands it back for the caller to retire. forget_idle() removes a pooled connection that
  // closed while idle (called from that connection's own on_events()).
  std::unique_ptr<UpstreamConn> take_idle();
  [[nodiscard]] std::unique_ptr<UpstreamConn> put_idle(std::unique_ptr<UpstreamConn> conn,
                                                       std::size_t max_idle);
  std::unique_ptr<UpstreamConn> forget_idle(UpstreamConn* conn);
  // Closes idle connections unused since before `cutoff_ns`.
  void expire_idle(std::int64_t cutoff_ns);
  std::size_t idle_count() const { return idle_.size(); }

 private:
  static void bump(std::atomic<std::uint64_t>& c) {
    c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  BackendState& state_;
  std::int64_t in_flight_ = 0;
  BackendCounters counters_;
  mutable std::mutex latency_mutex_;
  stats::Histogram latency_;
  std::vector<std::unique_ptr<UpstreamConn>> idle_;  // most recently used last
};

}  // namespace stampede::balancer
