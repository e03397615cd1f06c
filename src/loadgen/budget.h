// The -n budget: exactly `total` requests are sent, whatever the number of workers and
// connections. Workers claim tickets from a SharedBudget in batches (one atomic operation per
// batch, none per request) into a LocalBudget; every ticket taken is one request sent and
// reported, and a worker only stops when the shared budget and its own are both empty.
//
// Each worker first reserves one ticket per connection (reserve(), before any worker runs), so
// that a worker whose thread starts late still opens all its connections: with -n 500 -c 10 on
// two workers, 10 connections are opened even when one worker could send all 500 before the
// other has started. The rest is shared as it is claimed, so a faster worker sends more.
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
  // Takes up to `wanted` tickets at once, without batching; returns how many (0 when the
  // budget is unlimited or spent). For the workers' reservations, made before they run.
  std::uint64_t reserve(std::uint64_t wanted);
  std::uint64_t remaining() const { return remaining_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> remaining_;
  std::uint32_t workers_;
  bool unlimited_;
};

// One worker's tickets. Worker thread only.
class LocalBudget {
 public:
  // Starts with `reserved` tickets already taken from `shared` (SharedBudget::reserve).
  explicit LocalBudget(SharedBudget& shared, std::uint64_t reserved = 0)
      : shared_(shared), tickets_(reserved) {}
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
  std::uint64_t tickets_;
};

}  // namespace stampede::loadgen
