// The balancer's own endpoints: GET /lb-stats (JSON, nlohmann-json) and GET /metrics
// (Prometheus text format 0.0.4). Both report the same numbers, summed over workers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "balancer/backend.h"
#include "balancer/config.h"

namespace stampede::balancer {

class Worker;

// Everything the admin endpoints read. Filled before the worker threads start, read-only
// afterwards; the numbers behind it are read with relaxed atomics or under the histogram lock.
struct Fleet {
  const BalancerConfig* config = nullptr;
  std::vector<BackendState*> states;
  std::vector<const Worker*> workers;
};

// One backend's figures summed over workers.
struct BackendReport {
  const BackendState* state = nullptr;
  bool live = false;
  BackendTotals totals;
  stats::Histogram latency;
};

std::vector<BackendReport> collect_reports(const Fleet& fleet, std::int64_t now_ns);

// /lb-stats schema (docs/balance.md): {"strategy", "workers", "health": {...}, "retries",
// "eject_time_ms", "replies": {"502": n, ...}, "local_errors": {"accept", "connect"},
// "client_tls": {"handshakes", "failed": {"error", "closed", "timeout"}}, "backends": [{"name",
// "address", "weight", "up", "sent", "responses", "in_flight", "failures", "retries",
// "down_transitions", "latency_ms": {"count", "mean", "p50", "p90", "p99", "p999", "max"}}]}
std::string render_stats_json(const Fleet& fleet, std::int64_t now_ns);
std::string render_metrics(const Fleet& fleet, std::int64_t now_ns);

}  // namespace stampede::balancer
