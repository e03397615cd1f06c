#include "loadgen/budget.h"

#include <algorithm>

namespace stampede::loadgen {

namespace {
constexpr std::uint64_t kMaxBatch = 64;
}  // namespace

SharedBudget::SharedBudget(std::uint64_t total, std::uint32_t workers)
    : total_(total), workers_(std::max<std::uint32_t>(workers, 1)) {}

TicketRange SharedBudget::claim() {
  if (unlimited()) {
    return {taken_.fetch_add(kMaxBatch, std::memory_order_relaxed) + 1, kMaxBatch};
  }
  // An eighth of each worker's share of what is left: no worker sits on many tickets while
  // another has run dry near the end.
  const std::uint64_t left = remaining();
  return take_up_to(std::clamp<std::uint64_t>(left / (8 * workers_), 1, kMaxBatch));
}

TicketRange SharedBudget::reserve(std::uint64_t wanted) {
  if (unlimited()) return {taken_.fetch_add(wanted, std::memory_order_relaxed) + 1, wanted};
  return take_up_to(wanted);
}

TicketRange SharedBudget::take_up_to(std::uint64_t wanted) {
  std::uint64_t taken = taken_.load(std::memory_order_relaxed);
  for (;;) {
    const std::uint64_t count = std::min(total_ - taken, wanted);
    if (count == 0) return {};
    if (taken_.compare_exchange_weak(taken, taken + count, std::memory_order_relaxed)) {
      return {taken + 1, count};
    }
  }
}

}  // namespace stampede::loadgen
