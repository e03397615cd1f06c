#include "loadgen/pacer.h"

#include <cmath>

namespace stampede::loadgen {

RateSchedule::RateSchedule(double rps, std::int64_t ramp_ns)
    : rps_(rps),
      ramp_s_(static_cast<double>(ramp_ns) / 1e9),
      ramp_requests_(rps * static_cast<double>(ramp_ns) / 1e9 / 2) {}

std::int64_t RateSchedule::offset_of(std::uint64_t k) const {
  const double n = static_cast<double>(k);
  double seconds = 0;
  if (n < ramp_requests_) {
    seconds = std::sqrt(2 * ramp_s_ * n / rps_);  // inverse of n = R t^2 / 2T
  } else {
    seconds = ramp_s_ + (n - ramp_requests_) / rps_;
  }
  return std::llround(seconds * 1e9);
}

std::uint64_t RateSchedule::count_before(std::int64_t offset_ns) const {
  if (offset_ns <= 0) return 0;
  const double t = static_cast<double>(offset_ns) / 1e9;
  const double due =
      t <= ramp_s_ ? rps_ * t * t / (2 * ramp_s_) : ramp_requests_ + rps_ * (t - ramp_s_);
  // The estimate is off by at most one either way (rounding); settle it on offset_of itself.
  auto count = static_cast<std::uint64_t>(std::ceil(due));
  while (count > 0 && offset_of(count - 1) >= offset_ns)
    --count;
  while (offset_of(count) < offset_ns)
    ++count;
  return count;
}

}  // namespace stampede::loadgen
