// RateStats: what one worker measures beyond WorkerStats when it paces (--rps) or keeps a
// timeline: the uncorrected latency (from the actual first write), the send lag behind the
// schedule, the late requests, and the per-second timeline. Absent (null) in a plain
// closed-loop run, so that run pays nothing for it.
//
// Thread: the owning worker's only; merged by the runner after the workers join.
#pragma once

#include <cstdint>
#include <optional>

#include "stats/histogram.h"
#include "stats/timeline.h"

namespace stampede::loadgen {

class RateStats {
 public:
  // A request that begins more than this behind its intended time is late.
  static constexpr std::int64_t kLateNs = 1'000'000;

  // paced: the run follows an open-loop schedule (lag and uncorrected latency are kept).
  // timeline: a per-second timeline is kept (from start()).
  RateStats(bool paced, bool timeline);

  // The run's start, the same for every worker (the timeline's origin). Before any event.
  void start(std::int64_t start_ns);

  // A request began at now_ns (connect or first byte); intended_ns is its scheduled time.
  // waited_for_connection: it was due before a connection was free to carry it (see
  // SendPermit); otherwise its lag is the generator's own (the pacer's wake-up, a busy loop).
  void on_sent(std::int64_t intended_ns, std::int64_t now_ns, bool waited_for_connection) {
    if (lag_) {
      const std::int64_t lag = now_ns - intended_ns;
      lag_->record(lag);
      if (!waited_for_connection) generator_lag_->record(lag);
      if (lag > kLateNs) {
        ++late_;
        if (waited_for_connection) ++late_waiting_;
      }
    }
    if (timeline_) timeline_->on_sent(now_ns);
  }
  // A request ended at end_ns: latency_ns as recorded in WorkerStats (corrected when paced),
  // uncorrected_ns from its actual start.
  void on_completed(std::int64_t latency_ns, std::int64_t uncorrected_ns, std::int64_t end_ns,
                    stats::ErrorClass cls) {
    if (uncorrected_) uncorrected_->record(uncorrected_ns);
    if (timeline_) timeline_->on_completed(end_ns, latency_ns, cls);
  }

  // Adds other's measurements (same flags and start, as all workers of one run have).
  void merge(const RateStats& other);

  bool paced() const { return lag_.has_value(); }
  // Null unless paced.
  const stats::Histogram* uncorrected() const { return uncorrected_ ? &*uncorrected_ : nullptr; }
  const stats::Histogram* lag() const { return lag_ ? &*lag_ : nullptr; }
  // Null unless paced: the lag of the requests that had a connection free at their time.
  const stats::Histogram* generator_lag() const {
    return generator_lag_ ? &*generator_lag_ : nullptr;
  }
  std::uint64_t late() const { return late_; }
  // The late requests that waited for a free connection (a subset of late()).
  std::uint64_t late_waiting() const { return late_waiting_; }
  // Null unless a timeline is kept and start() was called.
  const stats::Timeline* timeline() const { return timeline_ ? &*timeline_ : nullptr; }

  // The class of an ended request: a response's status, or a transport failure.
  static stats::ErrorClass class_of_status(int status) {
    if (status >= 400 && status < 500) return stats::ErrorClass::Http4xx;
    if (status >= 500 && status < 600) return stats::ErrorClass::Http5xx;
    return stats::ErrorClass::None;
  }

 private:
  bool want_timeline_;
  std::optional<stats::Histogram> uncorrected_;
  std::optional<stats::Histogram> lag_;
  std::optional<stats::Histogram> generator_lag_;
  std::uint64_t late_ = 0;
  std::uint64_t late_waiting_ = 0;
  std::optional<stats::Timeline> timeline_;
};

}  // namespace stampede::loadgen
