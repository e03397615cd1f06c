// stampede::Result: the fields of the JSON report, and the reports themselves.
#include <sstream>

#include "api/bridge.h"

namespace stampede::api {

struct Result::Impl {
  loadgen::RunResult run;
};

Result make_result(loadgen::RunResult run) {
  return Result(std::make_shared<const Result::Impl>(Result::Impl{std::move(run)}));
}

// The fields come from the JSON object, so that they are what --json prints.
Result::Result(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {
  const loadgen::RunResult& r = impl_->run;
  const nlohmann::ordered_json j = loadgen::to_json(r);
  url = r.url;
  cores = r.cores;
  max_requests = r.max_requests;
  max_seconds = r.max_seconds;
  concurrency = r.concurrency;
  keep_alive = r.keep_alive;
  clients = r.clients;
  total_requests = r.total_requests;
  total_errors = r.total_errors;
  total_time_seconds = j["totalTimeSeconds"];
  mean_latency_ms = j["meanLatencyMs"];
  min_latency_ms = j["minLatencyMs"];
  max_latency_ms = j["maxLatencyMs"];
  latency_stddev_ms = j["latencyStddevMs"];
  effective_rps = j["effectiveRps"];
  error_codes = r.error_codes;
  status_codes = r.status_counts;
  header_counts = r.header_counts;
  bytes_received = r.bytes_read;
  bytes_sent = r.bytes_written;
  connections_opened = r.connections_opened;
  interrupted = r.interrupted;
}

double Result::percentile(double percent) const {
  return static_cast<double>(impl_->run.latency.percentile(percent)) / 1e6;
}

void Result::show(std::ostream& out) const {
  loadgen::write_text_report(impl_->run, out);
}

std::string Result::to_json() const {
  std::ostringstream out;
  loadgen::write_json_report(impl_->run, out);
  return out.str();
}

}  // namespace stampede::api
