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
  loadgen::Config c;
  c.url = std::move(url);
  c.cores = 1;
  c.max_requests = requests;
  c.concurrency = clients;
  c.timeout = std::chrono::seconds(10);
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

}  // namespace stampede::testing
