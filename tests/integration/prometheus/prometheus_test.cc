// The generator's --metrics-listen scraped by a real Prometheus (Debian's `prometheus`, started
// here on loopback, scrape interval 1 s): a 20 s run at a fixed rate against the in-process test
// server, then Prometheus's HTTP API must give the final JSON report's totals exactly and its
// p50/p99 within 2% (histogram_quantile), and every query of deploy/grafana/stampede.json must
// parse and return something. Release tree only (tests/integration/prometheus/CMakeLists.txt).
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "support/loopback.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "support/test_server.h"
#include "support/until_close.h"
#include "support/wait.h"

namespace stampede::testing {
namespace {

using namespace std::chrono_literals;
using Json = nlohmann::json;

constexpr const char* kPrometheus = "/usr/bin/prometheus";

std::string url_encode(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

// GET path from 127.0.0.1:port over HTTP/1.0 (so the body ends at the close); the body, or ""
// when the connection fails or the status is not 200.
std::string http_get(std::uint16_t port, const std::string& path) {
  const std::string out = exchange_until_close(
      port, "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", std::chrono::seconds(5));
  if (out.rfind("HTTP/1.0 200", 0) != 0 && out.rfind("HTTP/1.1 200", 0) != 0) return "";
  const std::size_t body = out.find("\r\n\r\n");
  return body == std::string::npos ? "" : out.substr(body + 4);
}

// A Prometheus on 127.0.0.1 scraping `target` every second, storage in its own TempDir; it takes
// no port 0, so a free one is picked and another tried when it was taken meanwhile.
class Prometheus {
 public:
  explicit Prometheus(std::uint16_t target) {
    const std::string config = dir_.file("prometheus.yml");
    std::ofstream(config) << fmt::format(
        "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
        "scrape_configs:\n  - job_name: stampede\n    static_configs:\n"
        "      - targets: ['127.0.0.1:{}']\n",
        target);
    for (int attempt = 0; attempt < 3 && !ready_; ++attempt) {
      port_ = unused_loopback_port();
      process_ = std::make_unique<ChildProcess>(std::vector<std::string>{
          kPrometheus, "--config.file=" + config,
          "--storage.tsdb.path=" + dir_.file(fmt::format("data{}", attempt)),
          fmt::format("--web.listen-address=127.0.0.1:{}", port_), "--log.level=warn"});
      ready_ =
          eventually([&] { return !process_->running() || !http_get(port_, "/-/ready").empty(); },
                     20s, 50ms) &&
          process_->running();
      if (!ready_) process_.reset();  // killed and reaped
    }
  }
  bool ready() const { return ready_; }
  std::string log() const { return process_ ? process_->stderr_text() : ""; }

  // The API's answer to an instant query: its "data" object, or null on any error.
  // `at`: the evaluation time (Unix seconds, as the API writes it); empty: now.
  Json query(const std::string& promql, const std::string& at = "") {
    const std::string body = http_get(
        port_, "/api/v1/query?query=" + url_encode(promql) + (at.empty() ? "" : "&time=" + at));
    if (body.empty()) return nullptr;
    Json j = Json::parse(body, nullptr, false);
    if (j.is_discarded() || j.value("status", "") != "success") return nullptr;
    return j["data"];
  }
  // The value of the single sample an instant query returns; NaN when it gives none.
  double scalar(const std::string& promql) {
    const Json data = query(promql);
    if (data.is_null() || data["result"].size() != 1) return std::nan("");
    return std::stod(data["result"][0]["value"][1].get<std::string>());
  }

 private:
  TempDir dir_;
  std::uint16_t port_ = 0;
  std::unique_ptr<ChildProcess> process_;  // killed and reaped by its destructor
  bool ready_ = false;
};

// Every "expr" of a Grafana dashboard, its variables replaced by what a query can run.
std::vector<std::string> dashboard_queries(const Json& j) {
  std::vector<std::string> out;
  std::function<void(const Json&)> walk = [&](const Json& node) {
    if (node.is_object()) {
      for (const auto& [key, value] : node.items()) {
        if (key == "expr" && value.is_string()) out.push_back(value.get<std::string>());
        walk(value);
      }
    } else if (node.is_array()) {
      for (const auto& item : node)
        walk(item);
    }
  };
  walk(j);
  for (std::string& q : out) {
    for (const auto& [from, to] : {std::pair{"$__rate_interval", "1m"}, std::pair{"$job", ".+"},
                                   std::pair{"$instance", ".+"}}) {
      for (std::size_t at = q.find(from); at != std::string::npos; at = q.find(from))
        q.replace(at, std::string_view(from).size(), to);
    }
  }
  return out;
}

TEST(Prometheus, ScrapedTotalsEqualTheReportAndQuantilesAreWithinTwoPercent) {
  if (access(kPrometheus, X_OK) != 0)
    GTEST_SKIP() << "prometheus is not installed (make test-deps)";
  server::ServerOptions options;
  options.error_status = 503;
  options.error_percent = 2;  // some errors, so that the errors panel has a series
  auto server = start_server(options);
  ASSERT_TRUE(server);
  const std::uint16_t metrics_port = unused_loopback_port();
  Prometheus prometheus(metrics_port);
  ASSERT_TRUE(prometheus.ready()) << prometheus.log();

  // --metrics-linger 3: two or three scrapes of the final figures before the generator exits.
  ChildProcess generator({STAMPEDE_BINARY, "--rps", "300", "-t", "20", "-c", "8", "-k", "--cores",
                          "2", "--json", "--quiet", "--metrics-listen",
                          fmt::format("127.0.0.1:{}", metrics_port), "--metrics-linger", "3",
                          fmt::format("http://127.0.0.1:{}/", server->port())});
  ASSERT_EQ(generator.wait(40s), 0) << generator.stderr_text();
  server->stop();
  const Json report = Json::parse(generator.stdout_text(), nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << generator.stdout_text();
  ASSERT_GT(report["totalRequests"].get<double>(), 5000);

  // The last scraped value of each series (the generator is gone: its series are stale, which
  // last_over_time looks past).
  auto last = [&](const std::string& series) {
    return prometheus.scalar("last_over_time(" + series + "[5m])");
  };
  EXPECT_EQ(last("stampede_run_active"), 0) << "no scrape after the run ended";
  EXPECT_EQ(last("stampede_requests_total"), report["totalRequests"].get<double>());
  EXPECT_EQ(last("stampede_failed_requests_total"), report["totalErrors"].get<double>());
  EXPECT_EQ(last("stampede_received_bytes_total"), report["bytesReceived"].get<double>());
  EXPECT_EQ(last("stampede_sent_bytes_total"), report["bytesSent"].get<double>());
  for (const auto& [status, n] : report["statusCodes"].items()) {
    EXPECT_EQ(last("stampede_responses_total{status=\"" + status + "\"}"), n.get<double>())
        << status;
  }
  for (const auto& [code, n] : report["errorCodes"].items())
    EXPECT_EQ(last("stampede_errors_total{code=\"" + code + "\"}"), n.get<double>()) << code;
  EXPECT_EQ(last("stampede_request_duration_seconds_count"), report["totalRequests"].get<double>());

  for (const auto& [q, key] : {std::pair{0.5, "50"}, std::pair{0.99, "99"}}) {
    const double ours = report["percentiles"][key].get<double>() / 1e3;
    const double theirs = prometheus.scalar(
        fmt::format("histogram_quantile({}, sum by (le) "
                    "(last_over_time(stampede_request_duration_seconds_bucket[5m])))",
                    q));
    // 2% of stampede's figure, plus the JSON's rounding to the microsecond.
    EXPECT_NEAR(theirs, ours, 0.02 * ours + 0.5e-6) << "p" << key;
  }

  std::ifstream file(std::string(STAMPEDE_SOURCE_DIR) + "/deploy/grafana/stampede.json");
  const Json dashboard = Json::parse(file, nullptr, false);
  ASSERT_FALSE(dashboard.is_discarded());
  const std::vector<std::string> queries = dashboard_queries(dashboard);
  EXPECT_GE(queries.size(), 10u);
  // Evaluated at the last scrape: a gauge's instant value is gone once the ended generator's
  // series are marked stale (as a live dashboard would show it while the run goes).
  const Json samples = prometheus.query("stampede_run_active[5m]");
  ASSERT_FALSE(samples.is_null());
  ASSERT_EQ(samples["result"].size(), 1u);
  const Json last_sample = samples["result"][0]["values"].back();
  const std::string at = fmt::format("{:.3f}", last_sample[0].get<double>());
  for (const std::string& q : queries) {
    const Json data = prometheus.query(q, at);
    ASSERT_FALSE(data.is_null()) << "does not parse: " << q;
    EXPECT_FALSE(data["result"].empty()) << "no result: " << q;
  }
}

}  // namespace
}  // namespace stampede::testing
