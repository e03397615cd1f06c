#include "loadgen/report_json.h"

#include <cmath>
#include <string>

namespace stampede::loadgen {
namespace {

using Json = nlohmann::ordered_json;

// Nanoseconds as milliseconds rounded to the microsecond.
double ms(double ns) {
  return std::round(ns / 1e3) / 1e3;
}

Json percentiles(const RunResult& r) {
  Json p = Json::object();
  for (const char* key : {"50", "90", "95", "99", "99.9"}) {
    p[key] = ms(static_cast<double>(r.latency.percentile(std::stod(key))));
  }
  return p;
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
  j["requestsPerSecond"] = nullptr;
  j["clients"] = r.clients;
  j["totalRequests"] = r.total_requests;
  j["totalErrors"] = r.total_errors;
  j["totalTimeSeconds"] = r.elapsed_seconds();
  j["elapsedSeconds"] = r.elapsed_seconds();
  j["meanLatencyMs"] = ms(r.latency.mean());
  j["minLatencyMs"] = ms(static_cast<double>(r.latency.min()));
  j["maxLatencyMs"] = ms(static_cast<double>(r.latency.max()));
  j["effectiveRps"] = std::llround(r.effective_rps());
  j["percentiles"] = percentiles(r);
  j["errorCodes"] = Json::object();
  for (const auto& [code, n] : r.error_codes)
    j["errorCodes"][code] = n;
  // Ours.
  j["latencyStddevMs"] = ms(r.latency.stddev());
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
  j["interrupted"] = r.interrupted;
  if (r.websocket) j["websocket"] = ws_json(r.ws, r.connections_opened);
  return j;
}

void write_json_report(const RunResult& result, std::ostream& out) {
  out << to_json(result).dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
  out.flush();
}

}  // namespace stampede::loadgen
