// ErrorSpread: which requests get the simulated error under `--percent`, without a coin flip.
#pragma once

#include <cmath>
#include <cstdint>

namespace stampede::server {

// Marks exactly floor(n * percent / 100) of the first n requests as errors, spread evenly
// (Bresenham: an accumulator gains `percent` per request and pays 100 per error). One per
// worker thread, never shared: the totals over W workers are within W of the exact share.
class ErrorSpread {
 public:
  // `percent` in [0, 100], kept in millionths of a percent.
  explicit ErrorSpread(double percent = 0)
      : step_(static_cast<std::uint64_t>(std::llround(percent * 1e6))) {}

  // Whether the next request is an error. Call once per request, in order.
  bool next() {
    accumulator_ += step_;
    if (accumulator_ < kHundred) return false;
    accumulator_ -= kHundred;
    return true;
  }

 private:
  static constexpr std::uint64_t kHundred = 100'000'000;  // 100% in millionths of a percent
  std::uint64_t step_;
  std::uint64_t accumulator_ = 0;
};

}  // namespace stampede::server
