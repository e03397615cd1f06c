#include "server/metrics.h"

#include "metrics/exposition.h"
#include "server/shared.h"

namespace stampede::server {
namespace {

// One counter of every worker, summed.
template <class Field>
std::uint64_t sum(const Shared& shared, Field field) {
  std::uint64_t total = 0;
  for (int i = 0; i < shared.workers; ++i)
    total +=
        static_cast<std::uint64_t>((shared.counters[i].*field).load(std::memory_order_acquire));
  return total;
}

}  // namespace

std::string render_metrics(const Shared& shared) {
  using metrics::Exposition;
  Exposition out;
  const std::uint64_t requests = sum(shared, &WorkerCounters::requests);
  out.counter("stampede_serve_requests_total",
              "Requests served (read in full; /count, /reset and /metrics not included).",
              requests);
  out.family("stampede_serve_responses_total", Exposition::Type::Counter,
             "Served requests by the status they were answered with.");
  for (int status = 0; status < WorkerCounters::kStatuses; ++status) {
    std::uint64_t n = 0;
    for (int i = 0; i < shared.workers; ++i)
      n += shared.counters[i].statuses[static_cast<std::size_t>(status)].load(
          std::memory_order_acquire);
    if (n == 0) continue;
    const std::string text = std::to_string(status);
    out.sample("stampede_serve_responses_total", {{"status", text}}, n);
  }
  out.counter("stampede_serve_bad_requests_total",
              "Requests refused as malformed or over a limit (400, 408, 413, 414, 431, 505).",
              sum(shared, &WorkerCounters::bad_requests));
  out.counter("stampede_serve_connections_accepted_total", "Client connections accepted.",
              sum(shared, &WorkerCounters::connections));
  out.counter("stampede_serve_connections_refused_total",
              "Connections reset past --max-connections (--over-limit reset).",
              sum(shared, &WorkerCounters::refused));
  out.counter("stampede_serve_sent_bytes_total", "Bytes of responses written to clients.",
              sum(shared, &WorkerCounters::bytes_written));
  out.family("stampede_serve_request_duration_seconds", Exposition::Type::Summary,
             "The server's own handling: request read in full to response written (--delay "
             "included).");
  out.sample("stampede_serve_request_duration_seconds_sum", {},
             static_cast<double>(sum(shared, &WorkerCounters::service_ns)) / 1e9);
  out.sample("stampede_serve_request_duration_seconds_count", {}, requests);
  return out.take();
}

}  // namespace stampede::server
