#include "loadgen/report/prometheus.h"

#include <string_view>

#include "metrics/exposition.h"

namespace stampede::loadgen {
namespace {

using metrics::Exposition;

void write_latency(Exposition& out, const stats::Histogram& h,
                   const stats::PrometheusBuckets& buckets) {
  constexpr std::string_view kName = "stampede_request_duration_seconds";
  out.family(kName, Exposition::Type::Histogram,
             "Request latency: from the intended send time with --rps, else from the connect "
             "or first byte written, to the response's end or the failure.");
  const std::vector<std::uint64_t> cumulative = buckets.cumulative(h);
  const auto labels = buckets.labels();
  for (std::size_t i = 0; i < labels.size(); ++i)
    out.sample("stampede_request_duration_seconds_bucket", {{"le", labels[i]}}, cumulative[i]);
  out.sample("stampede_request_duration_seconds_bucket", {{"le", "+Inf"}}, cumulative.back());
  out.sample("stampede_request_duration_seconds_sum", {},
             static_cast<double>(h.totals().sum) / 1e9);
  out.sample("stampede_request_duration_seconds_count", {}, h.count());
}

void write_lag(Exposition& out, const RateResult& rate) {
  out.family("stampede_send_lag_seconds", Exposition::Type::Summary,
             "How far behind its intended time each request began (--rps), over the run.");
  for (const auto& [q, text] : {std::pair{0.5, "0.5"}, std::pair{0.9, "0.9"},
                                std::pair{0.99, "0.99"}, std::pair{0.999, "0.999"}}) {
    out.sample("stampede_send_lag_seconds", {{"quantile", text}},
               static_cast<double>(rate.lag.percentile(q * 100)) / 1e9);
  }
  out.sample("stampede_send_lag_seconds_sum", {}, static_cast<double>(rate.lag.totals().sum) / 1e9);
  out.sample("stampede_send_lag_seconds_count", {}, rate.lag.count());
  out.counter("stampede_late_requests_total",
              "Requests that began more than 1 ms behind their intended time (--rps).", rate.late);
  out.gauge("stampede_target_requests_per_second", "The rate asked for with --rps.",
            rate.target_rps);
}

}  // namespace

std::string render_prometheus(const LiveFigures& figures, const stats::PrometheusBuckets& buckets) {
  Exposition out;
  render_prometheus(out, figures, buckets);
  return out.take();
}

void render_prometheus(Exposition& out, const LiveFigures& figures,
                       const stats::PrometheusBuckets& buckets) {
  const RunResult& r = figures.result;
  out.counter("stampede_requests_sent_total", "Requests begun (connect or first byte written).",
              figures.sent);
  out.counter("stampede_requests_total",
              "Requests ended: a response of any status or a failure (the report's total).",
              r.total_requests);
  out.counter("stampede_failed_requests_total",
              "Requests counted as errors: status < 200 or >= 400, and failures.", r.total_errors);
  out.family("stampede_errors_total", Exposition::Type::Counter,
             "Errors by code: a status (\"500\"), an errno name (\"ECONNREFUSED\") or a custom "
             "code, as the report's errorCodes.");
  for (const auto& [code, n] : r.error_codes)
    out.sample("stampede_errors_total", {{"code", code}}, n);
  out.family("stampede_local_errors_total", Exposition::Type::Counter,
             "The generator's own failures (out of descriptors, ports, memory), not the "
             "server's.");
  for (const auto& [code, n] : r.local_errors)
    out.sample("stampede_local_errors_total", {{"code", code}}, n);
  out.family("stampede_responses_total", Exposition::Type::Counter, "Responses by status.");
  for (const auto& [status, n] : r.status_counts) {
    const std::string text = std::to_string(status);
    out.sample("stampede_responses_total", {{"status", text}}, n);
  }
  out.counter("stampede_received_bytes_total", "Bytes read from the server.", r.bytes_read);
  out.counter("stampede_sent_bytes_total", "Bytes written to the server.", r.bytes_written);
  out.counter("stampede_connections_opened_total", "TCP connections opened.", r.connections_opened);
  out.gauge("stampede_requests_in_flight", "Requests begun and not yet ended.",
            static_cast<double>(figures.in_flight));
  out.gauge("stampede_achieved_requests_per_second",
            "With --rps: requests begun per second of the send window so far; else requests "
            "ended per second of the run so far.",
            r.rate ? r.rate->achieved_rps() : r.effective_rps());
  out.gauge("stampede_run_elapsed_seconds", "Time since the run started (its length once ended).",
            r.elapsed_seconds());
  out.gauge("stampede_run_active", "1 while a run is in progress, 0 once it ended.",
            figures.running ? 1.0 : 0.0);
  if (r.rate) write_lag(out, *r.rate);
  write_latency(out, r.latency, buckets);
}

}  // namespace stampede::loadgen
