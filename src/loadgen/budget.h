// The -n budget: exactly `total` requests are sent, whatever the number of workers and
// connections. Workers claim tickets from a SharedBudget in batches (one atomic operation per
// batch, none per request) into a LocalBudget; every ticket taken is one request sent and
// reported, and a worker only stops when the shared budget and its own are both empty.
//
// Tickets are numbered from 1 and a batch is a run of consecutive numbers, so a ticket's number
// is its request's index (--index): unique across workers, and with -n N exactly 1..N when every
// request is sent, as loadtest numbers them. An unlimited budget numbers its tickets the same way.
//
// Each worker first reserves one ticket per connection (reserve(), before any worker runs), so
// that a worker whose thread starts late still opens all its connections: with -n 500 -c 10 on
// two workers, 10 connections are opened even when one worker could send all 500 before the
// other has started. The rest is shared as it is claimed, so a faster worker sends more.
#pragma once

#include <atomic>
#include <cstdint>

namespace stampede::loadgen {

// Consecutive ticket numbers: first, first+1, ..., first+count-1. count 0: none.
struct TicketRange {
  std::uint64_t first = 0;
  std::uint64_t count = 0;
};

// Thread-safe. `total` 0 means unlimited.
class SharedBudget {
 public:
  SharedBudget(std::uint64_t total, std::uint32_t workers);
  bool unlimited() const { return total_ == 0; }
  // Takes up to a batch of tickets (none when the budget is spent). Batches shrink as the
  // budget runs out so that workers finish together.
  TicketRange claim();
  // Takes up to `wanted` tickets at once, without batching. For the workers' reservations,
  // made before they run.
  TicketRange reserve(std::uint64_t wanted);
  // Tickets not taken yet; 0 when unlimited.
  std::uint64_t remaining() const {
    return unlimited() ? 0 : total_ - taken_.load(std::memory_order_relaxed);
  }

 private:
  TicketRange take_up_to(std::uint64_t wanted);

  std::atomic<std::uint64_t> taken_{0};  // tickets handed out: the next one is taken_ + 1
  std::uint64_t total_;
  std::uint32_t workers_;
};

// One worker's tickets. Worker thread only.
class LocalBudget {
 public:
  // Starts with `reserved` tickets already taken from `shared` (SharedBudget::reserve).
  explicit LocalBudget(SharedBudget& shared, TicketRange reserved = {})
      : shared_(shared), tickets_(reserved) {}
  // Takes one ticket: its number (from 1) when a request may be sent, 0 when the budget is spent.
  std::uint64_t take() {
    if (tickets_.count == 0) tickets_ = shared_.claim();
    if (tickets_.count == 0) return 0;
    --tickets_.count;
    return tickets_.first++;
  }

 private:
  SharedBudget& shared_;
  TicketRange tickets_;
};

}  // namespace stampede::loadgen
