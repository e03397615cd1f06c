// State one server's workers share: its plan's options, content and TLS context (read-only once
// the workers run) and one block of counters per worker.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "server/plan.h"
#include "server/server.h"
#include "tls/context.h"

namespace stampede::server {

// One worker's counters. Single writer (the worker's thread) with plain load+store, so the
// hot path pays no locked instruction; any thread may read them. Release stores pair with the
// readers' acquire loads: a request counted before its response was written is seen by a
// /count that arrives after that response on any worker.
struct alignas(64) WorkerCounters {
  std::atomic<std::uint64_t> requests{0};
  std::atomic<std::uint64_t> errors{0};
  std::atomic<std::uint64_t> bad_requests{0};
  std::atomic<std::uint64_t> connections{0};
  std::atomic<std::uint64_t> refused{0};
  std::atomic<std::int64_t> service_ns{0};
  std::atomic<std::uint64_t> bytes_written{0};  // to clients, every answer (GET /metrics)
  // Served requests by the status they were answered with (GET /metrics); others in slot 0.
  static constexpr int kStatuses = 1000;
  std::array<std::atomic<std::uint64_t>, kStatuses> statuses{};

  void count_status(int status) {
    add(statuses[static_cast<std::size_t>(status >= 0 && status < kStatuses ? status : 0)],
        std::uint64_t{1});
  }

  template <class T>
  static void add(std::atomic<T>& counter, T n) {
    counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_release);
  }
};

struct Shared {
  Shared(ServerOptions opts, Content resolved, int worker_count)
      : options(std::move(opts)),
        content(std::move(resolved)),
        workers(worker_count),
        counters(std::make_unique<WorkerCounters[]>(static_cast<std::size_t>(worker_count))) {}

  // Requests counted by every worker since start, minus those before the last /reset.
  std::uint64_t served() const {
    return total_requests() - served_base.load(std::memory_order_acquire);
  }
  void reset_served() { served_base.store(total_requests(), std::memory_order_release); }

  std::uint64_t total_requests() const {
    std::uint64_t sum = 0;
    for (int i = 0; i < workers; ++i)
      sum += counters[i].requests.load(std::memory_order_acquire);
    return sum;
  }

  const ServerOptions options;
  const Content content;
  const int workers;
  std::unique_ptr<WorkerCounters[]> counters;
  std::atomic<std::uint64_t> served_base{0};
  // Client connections open on all workers; kept only with --max-connections.
  std::atomic<std::uint32_t> open_connections{0};
  tls::ContextPtr tls;  // null for plain TCP; set before the workers start, then read-only
};

}  // namespace stampede::server
