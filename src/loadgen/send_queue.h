// SendQueue: the connections of one paced worker that hold a permit not yet due, earliest first.
// Pure bookkeeping fed with times (no clock, no loop), so the release rule is unit-tested.
//
// The worker releases every entry due at each loop wake-up, whatever woke the loop (a response,
// or the one worker timer on the kWakeGridNs grid armed for the earliest entry): a connection
// waits for its request's time, not for the next grid point, whenever the loop is awake anyway.
//
// Permits come from one monotonic schedule, so entries arrive in due order and push is O(1); an
// out-of-order time is still inserted at its place. A ring buffer sized for the worker's
// connections: no allocation per request (it grows only if more are pushed at once).
//
// Thread: the owning worker's only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace stampede::loadgen {

template <typename T>
class SendQueue {
 public:
  explicit SendQueue(std::size_t capacity) : ring_(capacity > 0 ? capacity : 1) {}

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // The earliest due time. Requires !empty().
  std::int64_t front_at() const { return ring_[head_].at_ns; }

  // Adds item, due at at_ns.
  void push(std::int64_t at_ns, T* item) {
    if (size_ == ring_.size()) grow();
    std::size_t i = size_++;
    // Shift later entries back one slot (none when times arrive in order).
    while (i > 0 && slot(i - 1).at_ns > at_ns) {
      slot(i) = slot(i - 1);
      --i;
    }
    slot(i) = Entry{at_ns, item};
  }

  // Removes and returns the earliest entry if it is due at or before now_ns; null otherwise.
  T* pop_due(std::int64_t now_ns) {
    if (size_ == 0 || ring_[head_].at_ns > now_ns) return nullptr;
    T* item = ring_[head_].item;
    head_ = (head_ + 1) % ring_.size();
    --size_;
    return item;
  }

  void clear() { head_ = size_ = 0; }

 private:
  struct Entry {
    std::int64_t at_ns = 0;
    T* item = nullptr;
  };
  Entry& slot(std::size_t i) { return ring_[(head_ + i) % ring_.size()]; }
  void grow() {
    std::vector<Entry> bigger(ring_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i)
      bigger[i] = slot(i);
    ring_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<Entry> ring_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace stampede::loadgen
