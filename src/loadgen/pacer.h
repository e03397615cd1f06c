// Pacer: when a worker's next request is meant to go out. The one seam between "a connection is
// free" and "send": closed-loop now; open-loop (--rps, request k at start + k/R) plugs in here.
#pragma once

#include <cstdint>

namespace stampede::loadgen {

class Pacer {
 public:
  virtual ~Pacer() = default;
  // Called on the worker thread each time a connection is ready to send. Returns the intended
  // send time on the monotonic clock; a time <= now_ns means "send now". Latency can later be
  // measured from this time (wrk2's coordinated-omission correction).
  virtual std::int64_t next_send_time(std::int64_t now_ns) = 0;
};

// Closed loop (loadtest without --rps, wrk): every free connection sends at once.
class ClosedLoopPacer final : public Pacer {
 public:
  std::int64_t next_send_time(std::int64_t now_ns) override { return now_ns; }
};

}  // namespace stampede::loadgen
