// The -n budget: exactly `total` requests are sent, whatever the number of workers and
// connections. Workers claim tickets from a SharedBudget in batches (one atomic operation per
// batch, none per request) into a LocalBudget; every ticket taken is one request sent and
// reported, and a worker only stops when the shared budget and its own are both empty.
#pragma once

#include <atomic>
#include <cstdint>

namespace stampede::loadgen {

// Thread-safe. `total` 0 means unlimited.
class SharedBudget {
 public:
  SharedBudget(std::uint64_t total, std::uint32_t workers);
  bool unlimited() const { return unlimited_; }
  // Takes up to a batch of tickets; returns how many (0 when the budget is spent). Batches
  // shrink as the budget runs out so that workers finish together.
  std::uint64_t claim();
  std::uint64_t remaining() const { return remaining_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> remaining_;
  std::uint32_t workers_;
  bool unlimited_;
};

// One worker's tickets. Worker thread only.
class LocalBudget {
 public:
  explicit LocalBudget(SharedBudget& shared) : shared_(shared) {}
  // Takes one ticket: true when a request may be sent.
  bool take() {
    if (shared_.unlimited()) return true;
    if (tickets_ == 0) tickets_ = shared_.claim();
    if (tickets_ == 0) return false;
    --tickets_;
    return true;
  }

 private:
  SharedBudget& shared_;
  std::uint64_t tickets_ = 0;
};

}  // namespace stampede::loadgen
