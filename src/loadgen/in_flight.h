// InFlight: the requests a pipelined connection (--pipeline N) has taken permits for and not yet
// seen answered, oldest first. Responses come back in request order, so the front is the one the
// next response answers. A ring of fixed capacity (the depth), allocated once per connection:
// nothing is allocated per request.
//
// Thread: the owning connection's worker only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace stampede::loadgen {

// One pipelined request and its own times (monotonic ns; 0: not yet).
struct FlightEntry {
  std::int64_t intended_ns = 0;  // the permit's time: with --rps latency counts from here
  std::int64_t begin_ns = 0;     // its connect's start, or its first byte written on a reused
                                 // connection: uncorrected latency and its timeout count from here
  std::int64_t written_ns = 0;   // the write that carried its first byte began (time to first byte)
  std::uint64_t index = 0;       // the permit's (--index)
  bool waited_for_connection = false;
};

class InFlight {
 public:
  explicit InFlight(std::size_t capacity = 0) : ring_(capacity) {}

  std::size_t capacity() const { return ring_.size(); }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == ring_.size(); }

  // Requires !full().
  void push(const FlightEntry& entry) {
    ring_[(head_ + size_) % ring_.size()] = entry;
    ++size_;
  }
  // Requires !empty().
  FlightEntry& front() { return ring_[head_]; }
  // The i-th oldest entry; requires i < size().
  FlightEntry& at(std::size_t i) { return ring_[(head_ + i) % ring_.size()]; }
  // Requires !empty().
  FlightEntry pop() {
    const FlightEntry entry = ring_[head_];
    head_ = (head_ + 1) % ring_.size();
    --size_;
    return entry;
  }
  void clear() { head_ = size_ = 0; }

 private:
  std::vector<FlightEntry> ring_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace stampede::loadgen
