// Pacer: when a worker's next request is meant to go out. The one seam between "a connection is
// free" and "send": closed loop (every free connection sends at once), or open loop (--rps:
// request k of the run at start + k/R, whatever the server does).
#pragma once

#include <cstdint>

#include "loadgen/shard.h"

namespace stampede::loadgen {

class Pacer {
 public:
  virtual ~Pacer() = default;
  // Called once on the worker thread before the first request: the run's start (monotonic).
  virtual void begin(std::int64_t /*start_ns*/) {}
  // Called on the worker thread each time a connection is ready to send. Returns the intended
  // send time on the monotonic clock; a time <= now_ns means "send now". Latency is measured
  // from this time with --rps (wrk2's coordinated-omission correction).
  virtual std::int64_t next_send_time(std::int64_t now_ns) = 0;
};

// Closed loop (loadtest without --rps, wrk): every free connection sends at once.
class ClosedLoopPacer final : public Pacer {
 public:
  std::int64_t next_send_time(std::int64_t now_ns) override { return now_ns; }
};

// The open-loop schedule of a whole run, pure arithmetic: request k (0-based, counted across all
// workers) is due offset_of(k) ns after the start. Without a ramp offset_of(k) = k / R. With a
// ramp of T seconds the rate grows linearly from 0 to R over T (R t^2 / 2T requests are due by
// t <= T), then stays at R.
class RateSchedule {
 public:
  // rps > 0 and finite; ramp_ns >= 0.
  RateSchedule(double rps, std::int64_t ramp_ns);

  std::int64_t offset_of(std::uint64_t k) const;
  // How many requests are due strictly before offset_ns (0 for offset_ns <= 0).
  std::uint64_t count_before(std::int64_t offset_ns) const;
  double rps() const { return rps_; }

 private:
  double rps_;
  double ramp_s_;
  double ramp_requests_;  // R T / 2: the requests due during the ramp
};

// When a paced worker's timer wakes its loop for a held request due at at_ns: the next point of
// a grid of kWakeGridNs on the monotonic clock, so the requests due within one step go out in
// one timer wake-up instead of one each, at the price of at most one step of send lag (wrk2
// wakes on a 1 ms grid). A wake-up for any other reason (a response) sends what is due before
// the grid point (see SendQueue). Latency still counts from at_ns.
inline constexpr std::int64_t kWakeGridNs = 100'000;
inline std::int64_t wake_time(std::int64_t at_ns) {
  return (at_ns + kWakeGridNs - 1) / kWakeGridNs * kWakeGridNs;
}

// Open loop: worker w of W takes requests w, w + W, w + 2W... of its shard's part of the run's
// schedule (the shard's k-th request holds the run's slot Shard::global_slot(k)), so the workers
// of all the shards together follow it exactly. A request whose time has passed (no connection was
// free) goes out at once and its latency still counts from its intended time.
class OpenLoopPacer final : public Pacer {
 public:
  OpenLoopPacer(RateSchedule schedule, std::uint32_t worker, std::uint32_t workers,
                Shard shard = {})
      : schedule_(schedule), worker_(worker), workers_(workers), shard_(shard) {}

  void begin(std::int64_t start_ns) override { start_ns_ = start_ns; }
  std::int64_t next_send_time(std::int64_t /*now_ns*/) override {
    const std::uint64_t k = next_++ * workers_ + worker_;
    return start_ns_ + schedule_.offset_of(shard_.global_slot(k));
  }

 private:
  RateSchedule schedule_;
  std::uint32_t worker_;
  std::uint32_t workers_;
  Shard shard_;
  std::uint64_t next_ = 0;
  std::int64_t start_ns_ = 0;
};

}  // namespace stampede::loadgen
