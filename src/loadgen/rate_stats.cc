#include "loadgen/rate_stats.h"

namespace stampede::loadgen {

RateStats::RateStats(bool paced, bool timeline) : want_timeline_(timeline) {
  if (paced) {
    uncorrected_.emplace();
    lag_.emplace();
    generator_lag_.emplace();
  }
}

void RateStats::start(std::int64_t start_ns) {
  if (want_timeline_) timeline_.emplace(start_ns);
}

void RateStats::merge(const RateStats& other) {
  if (other.uncorrected_) {
    if (!uncorrected_) uncorrected_.emplace();
    uncorrected_->merge(*other.uncorrected_);
  }
  if (other.lag_) {
    if (!lag_) lag_.emplace();
    lag_->merge(*other.lag_);
  }
  if (other.generator_lag_) {
    if (!generator_lag_) generator_lag_.emplace();
    generator_lag_->merge(*other.generator_lag_);
  }
  late_ += other.late_;
  late_waiting_ += other.late_waiting_;
  if (other.timeline_) {
    if (!timeline_) {
      timeline_.emplace(*other.timeline_);
    } else {
      // Same start for every worker of a run: the merge cannot fail.
      (void)timeline_->merge(*other.timeline_);
    }
  }
}

}  // namespace stampede::loadgen
