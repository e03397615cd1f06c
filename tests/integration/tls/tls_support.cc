#include "tls_support.h"

#include <gtest/gtest.h>

#include <chrono>
#include <utility>

namespace stampede::testing {

std::unique_ptr<server::Server> start_tls_server(bool tls, int error_status, double percent) {
  server::ServerOptions options;
  options.tls_self_signed = tls;
  options.error_status = error_status;
  options.error_percent = percent;
  return start_server(options);
}

loadgen::Config tls_client_config(std::string url, std::uint64_t requests, std::uint32_t clients) {
  loadgen::Config c = one_core_config(std::move(url), requests, clients, std::chrono::seconds(10));
  c.insecure = true;
  return c;
}

std::string first_error(const loadgen::RunResult& r) {
  return r.error_codes.empty() ? "" : r.error_codes.begin()->first;
}

void run_each_tls_version(
    loadgen::Config config,
    const std::function<void(const loadgen::RunResult&, const char* protocol)>& check) {
  for (const char* protocol : {"TLSv1_2_method", "TLSv1_3_method"}) {
    config.secure_protocol = protocol;
    check(must_run(config), protocol);
  }
}

std::optional<nlohmann::json> json_report_of_20(const std::string& url) {
  const RunResult r =
      run_stampede({"-n", "20", "-c", "2", "--cores", "1", "--json", "--insecure", url});
  EXPECT_EQ(r.status, 0) << r.err;
  if (r.status != 0) return std::nullopt;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["totalRequests"], 20);
  EXPECT_EQ(j["totalErrors"], 0);
  return j;
}

}  // namespace stampede::testing
