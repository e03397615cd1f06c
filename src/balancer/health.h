// Active health checks: every --health-interval, one HTTP GET of --health-path per backend on
// a fresh connection ("Connection: close"). A 2xx or 3xx status line within --health-timeout
// is a success. --rise consecutive successes bring a down backend up, --fall consecutive
// failures take an up one down (HAProxy's rise/fall). Passive detection (a worker seeing a
// refused or reset connection) takes a backend down at once; the checker then needs --rise
// successes from that moment to bring it back. A check the balancer cannot make for want of its
// own descriptors, memory or ports is skipped: no verdict either way.
//
// Runs on one worker's loop (worker 0) and writes the shared BackendState flags.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "balancer/backend.h"
#include "balancer/config.h"
#include "net/event_loop.h"
#include "tls/stream.h"

namespace stampede::balancer {

class HealthChecker {
 public:
  HealthChecker(net::EventLoop& loop, const BalancerConfig& config,
                std::span<BackendState* const> states);
  ~HealthChecker();
  HealthChecker(const HealthChecker&) = delete;
  HealthChecker& operator=(const HealthChecker&) = delete;

  // Schedules the first round one interval from now. Loop thread, or before the loop runs.
  void start();

  // Totals for tests and reports: probes finished, and how many of them succeeded.
  std::uint64_t probes() const { return probes_; }
  std::uint64_t successes() const { return successes_; }
  // Checks not made because the balancer itself was out of descriptors, memory or ports: no
  // verdict, the backend's streaks are left as they were.
  std::uint64_t skipped() const { return skipped_; }

 private:
  class Probe;
  struct Track {
    int ok_streak = 0;
    int fail_streak = 0;
    bool known_up = true;     // the up flag as the checker last left it
    tls::SessionPtr session;  // a TLS backend's session, resumed by the next check (before the
                              // probe: a probe closing at destruction writes it)
    std::unique_ptr<Probe> probe;
  };

  void round();
  void expire_outstanding();
  void on_result(std::size_t index, bool ok);
  void on_skipped(std::size_t index);

  net::EventLoop& loop_;
  const BalancerConfig& config_;
  std::vector<BackendState*> states_;
  std::vector<Track> tracks_;
  std::vector<std::unique_ptr<Probe>> finished_;  // freed from a timer, never mid-dispatch
  std::string request_path_;
  net::Timer round_timer_;
  net::Timer timeout_timer_;
  std::uint64_t probes_ = 0;
  std::uint64_t successes_ = 0;
  std::uint64_t skipped_ = 0;
};

}  // namespace stampede::balancer
