#include "loadgen/report/json.h"

#include <cmath>
#include <string>

namespace stampede::loadgen {
namespace {

using Json = nlohmann::ordered_json;

// Nanoseconds as milliseconds rounded to the microsecond.
double rounded_ms(double ns) {
  return std::round(ns / 1e3) / 1e3;
}

Json percentiles(const stats::Histogram& latency) {
  Json p = Json::object();
  for (const char* key : {"50", "90", "95", "99", "99.9"}) {
    p[key] = rounded_ms(static_cast<double>(latency.percentile(std::stod(key))));
  }
  return p;
}

// A latency in ms, or null for a row without one.
Json optional_ms(std::int64_t ns, bool present) {
  return present ? Json(rounded_ms(static_cast<double>(ns))) : Json(nullptr);
}

Json timeline_json(const RunResult& r) {
  Json rows = Json::array();
  for (const stats::TimelineRow& row : r.timeline) {
    Json j;
    j["second"] = row.t_start_s;
    j["widthSeconds"] = row.width_s;
    j["coveredSeconds"] = row.covered_s;
    j["sentPerSecond"] = std::round(row.per_second(row.sent) * 1000) / 1000;
    j["completedPerSecond"] = std::round(row.per_second(row.completed) * 1000) / 1000;
    j["sent"] = row.sent;
    j["completed"] = row.completed;
    j["errors4xx"] = row.errors_4xx;
    j["errors5xx"] = row.errors_5xx;
    j["errorsTransport"] = row.errors_transport;
    j["p50Ms"] = optional_ms(row.p50_ns, row.has_latency);
    j["p99Ms"] = optional_ms(row.p99_ns, row.has_latency);
    rows.push_back(std::move(j));
  }
  return rows;
}

// One phase's distribution in ms with its count; null when nothing was measured.
Json phase(const stats::Histogram& h) {
  if (h.count() == 0) return nullptr;
  Json j;
  j["count"] = h.count();
  j["min"] = rounded_ms(static_cast<double>(h.min()));
  j["mean"] = rounded_ms(h.mean());
  j["50"] = rounded_ms(static_cast<double>(h.percentile(50)));
  j["99"] = rounded_ms(static_cast<double>(h.percentile(99)));
  j["max"] = rounded_ms(static_cast<double>(h.max()));
  return j;
}

// --rps fields: null without it.
void add_rate(const RunResult& r, Json& j) {
  const RateResult* rate = r.rate ? &*r.rate : nullptr;
  j["rampSeconds"] = rate ? Json(rate->ramp_seconds) : Json(nullptr);
  j["achievedRps"] = rate ? Json(std::round(rate->achieved_rps() * 1000) / 1000) : Json(nullptr);
  j["scheduledRequests"] = rate ? Json(rate->scheduled) : Json(nullptr);
  j["sentRequests"] = rate ? Json(rate->sent) : Json(nullptr);
  j["targetHeld"] = rate ? Json(r.target_held()) : Json(nullptr);
  j["correctedPercentiles"] = rate ? percentiles(r.latency) : Json(nullptr);
  j["uncorrectedPercentiles"] = rate ? percentiles(rate->uncorrected) : Json(nullptr);
  j["uncorrectedMeanLatencyMs"] = rate ? Json(rounded_ms(rate->uncorrected.mean())) : Json(nullptr);
  if (rate) {
    j["sendLagMs"] = {{"50", rounded_ms(static_cast<double>(rate->lag.percentile(50)))},
                      {"99", rounded_ms(static_cast<double>(rate->lag.percentile(99)))},
                      {"max", rounded_ms(static_cast<double>(rate->lag.max()))}};
  } else {
    j["sendLagMs"] = nullptr;
  }
  if (rate && rate->generator_lag.count() > 0) {
    const stats::Histogram& own = rate->generator_lag;
    j["generatorLagMs"] = {{"50", rounded_ms(static_cast<double>(own.percentile(50)))},
                           {"99", rounded_ms(static_cast<double>(own.percentile(99)))},
                           {"max", rounded_ms(static_cast<double>(own.max()))}};
  } else {
    j["generatorLagMs"] = nullptr;
  }
  j["lateRequests"] = rate ? Json(rate->late) : Json(nullptr);
  j["lateWaitingForConnection"] = rate ? Json(rate->late_waiting) : Json(nullptr);
}

}  // namespace

Json to_json(const RunResult& r) {
  Json j;
  j["url"] = r.url;
  j["cores"] = r.cores;
  j["maxRequests"] = r.max_requests > 0 ? Json(r.max_requests) : Json(nullptr);
  j["maxSeconds"] = r.max_seconds > 0 ? Json(r.max_seconds) : Json(nullptr);
  j["concurrency"] = r.concurrency;
  j["agent"] = r.keep_alive ? "keepalive" : "none";
  j["requestsPerSecond"] = r.rate ? Json(r.rate->target_rps) : Json(nullptr);
  j["clients"] = r.clients;
  j["totalRequests"] = r.total_requests;
  j["totalErrors"] = r.total_errors;
  j["totalTimeSeconds"] = r.elapsed_seconds();
  j["elapsedSeconds"] = r.elapsed_seconds();
  j["meanLatencyMs"] = rounded_ms(r.latency.mean());
  j["minLatencyMs"] = rounded_ms(static_cast<double>(r.latency.min()));
  j["maxLatencyMs"] = rounded_ms(static_cast<double>(r.latency.max()));
  j["effectiveRps"] = std::llround(r.effective_rps());
  j["percentiles"] = percentiles(r.latency);
  j["errorCodes"] = Json::object();
  for (const auto& [code, n] : r.error_codes)
    j["errorCodes"][code] = n;
  j["localErrors"] = Json::object();
  for (const auto& [code, n] : r.local_errors)
    j["localErrors"][code] = n;
  // Ours.
  j["latencyStddevMs"] = rounded_ms(r.latency.stddev());
  j["statusCodes"] = Json::object();
  for (const auto& [status, n] : r.status_counts)
    j["statusCodes"][std::to_string(status)] = n;
  j["headerCounts"] = Json::object();
  for (const auto& [name, counts] : r.header_counts) {
    Json values = Json::object();
    for (const auto& [value, n] : counts)
      values[value] = n;
    j["headerCounts"][name] = std::move(values);
  }
  j["bytesReceived"] = r.bytes_read;
  j["bytesSent"] = r.bytes_written;
  j["connectionsOpened"] = r.connections_opened;
  j["tlsHandshakes"] = r.tls_handshakes;
  j["tlsSessionsResumed"] = r.tls_resumed;
  j["connectMs"] = phase(r.connect);
  j["tlsHandshakeMs"] = phase(r.tls_handshake);
  j["firstByteMs"] = phase(r.first_byte);
  j["interrupted"] = r.interrupted;
  add_rate(r, j);
  j["timeline"] = timeline_json(r);
  if (r.websocket) j["websocket"] = ws_json(r.ws, r.connections_opened);
  if (r.http2) j["http2"] = h2_json(r.h2, r.streams);
  return j;
}

void write_json_report(const RunResult& result, std::ostream& out) {
  out << to_json(result).dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
  out.flush();
}

}  // namespace stampede::loadgen
