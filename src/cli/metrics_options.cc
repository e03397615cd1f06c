#include "cli/metrics_options.h"

#include <condition_variable>
#include <mutex>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/command_line.h"
#include "core/units.h"
#include "loadgen/report/prometheus.h"

namespace stampede::loadgen {

void add_metrics_options(CLI::App& app, MetricsTexts& texts) {
  add_last_wins_option(
      app, "--metrics-listen", texts.listen,
      "Serve GET /metrics (Prometheus text) on this host:port while the run goes (port "
      "0: any, printed on stderr; docs/metrics.md); default none");
  add_last_wins_option(app, "--metrics-linger", texts.linger,
                       "With --metrics-listen: keep serving the final figures this long after the "
                       "report (seconds, or 500ms, 1m), so that a scraper reads them; default 0");
}

Expected<MetricsSettings> to_metrics_settings(const MetricsTexts& texts) {
  MetricsSettings out;
  if (texts.listen) {
    auto address = metrics::parse_listen_address("--metrics-listen", *texts.listen);
    if (!address) return address.error();
    out.listen = *address;
  }
  if (texts.linger) {
    if (!texts.listen) return make_error("--metrics-linger needs --metrics-listen");
    auto d = parse_duration(*texts.linger, std::chrono::seconds(1));
    if (!d) return make_error(fmt::format("--metrics-linger: {}", d.error().message));
    out.linger = *d;
  }
  return out;
}

Expected<std::unique_ptr<metrics::MetricsEndpoint>> start_metrics_endpoint(
    const MetricsSettings& settings, metrics::MetricsEndpoint::Render render) {
  metrics::EndpointOptions options;
  options.address = *settings.listen;
  auto endpoint = metrics::MetricsEndpoint::start(options, std::move(render), "--metrics-listen");
  if (!endpoint) return endpoint.error();
  fmt::print(stderr, "Metrics: http://{}/metrics\n", (*endpoint)->address().to_string());
  return endpoint;
}

Expected<std::unique_ptr<MetricsServer>> MetricsServer::start(const MetricsSettings& settings) {
  std::unique_ptr<MetricsServer> server(new MetricsServer());
  MetricsServer* self = server.get();
  auto endpoint = start_metrics_endpoint(settings, [self] {
    const std::optional<LiveFigures> figures = self->feed_.snapshot();
    return figures ? render_prometheus(*figures, self->buckets_) : std::string();
  });
  if (!endpoint) return endpoint.error();
  server->endpoint_ = std::move(endpoint).value();
  return server;
}

void linger(std::chrono::nanoseconds linger, StopSignal& stop) {
  if (linger.count() <= 0) return;
  std::mutex mutex;
  std::condition_variable cv;
  bool stopped = false;
  stop.on_stop([&] {
    std::lock_guard lock(mutex);
    stopped = true;
    cv.notify_all();
  });
  {
    std::unique_lock lock(mutex);
    cv.wait_for(lock, linger, [&] { return stopped; });
  }
  stop.on_stop(nullptr);
}

}  // namespace stampede::loadgen
