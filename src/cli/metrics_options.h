// --metrics-listen and --metrics-linger, the same on the generator and the lab: the options,
// their checks, and the endpoint that serves a LiveFeed's figures as Prometheus text while the
// command runs (docs/metrics.md).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "core/expected.h"
#include "loadgen/live.h"
#include "metrics/endpoint.h"
#include "net/socket.h"
#include "stats/prometheus_buckets.h"

namespace CLI {
class App;
}  // namespace CLI

namespace stampede::loadgen {

struct MetricsTexts {
  std::optional<std::string> listen, linger;
};

// Checked: the address resolved (not bound yet), the linger a duration.
struct MetricsSettings {
  std::optional<net::Address> listen;  // none: no endpoint
  std::chrono::nanoseconds linger{0};  // serve the final figures this long after the report
};

void add_metrics_options(CLI::App& app, MetricsTexts& texts);
// Errors are one line naming the option; --metrics-linger needs --metrics-listen.
Expected<MetricsSettings> to_metrics_settings(const MetricsTexts& texts);

// The endpoint and the feed it serves. Binding is start()'s error (one line); once started, the
// chosen address is printed on stderr ("Metrics: http://127.0.0.1:PORT/metrics").
class MetricsServer {
 public:
  static Expected<std::unique_ptr<MetricsServer>> start(const MetricsSettings& settings);

  LiveFeed& feed() { return feed_; }
  const net::Address& address() const { return endpoint_->address(); }

 private:
  MetricsServer() = default;
  LiveFeed feed_;
  stats::PrometheusBuckets buckets_;
  std::unique_ptr<metrics::MetricsEndpoint> endpoint_;  // last: stopped before the feed goes
};

// The endpoint alone, serving `render` (the lab's runs, lab/live_runs.h); binding and the
// address line as MetricsServer::start.
Expected<std::unique_ptr<metrics::MetricsEndpoint>> start_metrics_endpoint(
    const MetricsSettings& settings, metrics::MetricsEndpoint::Render render);

// After the report: keeps the process (and the endpoint) up for `linger`, or until `stop`.
void linger(std::chrono::nanoseconds linger, StopSignal& stop);

}  // namespace stampede::loadgen
