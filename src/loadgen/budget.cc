#include "loadgen/budget.h"

#include <algorithm>

namespace stampede::loadgen {

namespace {
constexpr std::uint64_t kMaxBatch = 64;
}  // namespace

SharedBudget::SharedBudget(std::uint64_t total, std::uint32_t workers)
    : remaining_(total), workers_(std::max<std::uint32_t>(workers, 1)), unlimited_(total == 0) {}

std::uint64_t SharedBudget::claim() {
  std::uint64_t left = remaining_.load(std::memory_order_relaxed);
  for (;;) {
    if (left == 0) return 0;
    // An eighth of each worker's share of what is left: no worker sits on many tickets while
    // another has run dry near the end.
    const std::uint64_t batch = std::clamp<std::uint64_t>(left / (8 * workers_), 1, kMaxBatch);
    if (remaining_.compare_exchange_weak(left, left - batch, std::memory_order_relaxed)) {
      return batch;
    }
  }
}

std::uint64_t SharedBudget::reserve(std::uint64_t wanted) {
  if (unlimited_) return 0;
  std::uint64_t left = remaining_.load(std::memory_order_relaxed);
  for (;;) {
    const std::uint64_t taken = std::min(left, wanted);
    if (taken == 0) return 0;
    if (remaining_.compare_exchange_weak(left, left - taken, std::memory_order_relaxed)) {
      return taken;
    }
  }
}

}  // namespace stampede::loadgen
