#include "h2/flood_guard.h"

namespace stampede::h2 {

bool FloodGuard::note(Costly kind, std::int64_t now_ns) {
  if (flooded_) return false;
  if (!started_ || now_ns - window_start_ns_ >= kWindowNs) {
    started_ = true;
    window_start_ns_ = now_ns;
    counts_ = {};
  }
  if (++counts_[static_cast<std::size_t>(kind)] > limits_.per_second) flooded_ = true;
  return !flooded_;
}

}  // namespace stampede::h2
