// What the TLS integration tests share: a stampede serve in-process (TLS with a throwaway
// certificate, or plain) or as a child process, a generator Config for one core that accepts that
// certificate, and a run that must succeed (support/in_process.h's must_run), once per TLS
// version.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "loadgen/config.h"
#include "loadgen/runner.h"
#include "server/server.h"
#include "support/in_process.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "test_proxy.h"

namespace stampede::testing {

// A one-core server on a free loopback port: TLS with --tls-self-signed when `tls`, and every
// request answered with error_status for `percent` % of them when error_status != 0. Null (and a
// test failure) when it cannot start.
std::unique_ptr<server::Server> start_tls_server(bool tls, int error_status = 0,
                                                 double percent = 0);

// `requests` requests (or messages) to `url` over `clients` connections on one core, 10 s timeout,
// certificates not verified (the servers' are self-signed).
loadgen::Config tls_client_config(std::string url, std::uint64_t requests, std::uint32_t clients);

// Runs `config` once per TLS version (its secure_protocol TLSv1_2_method, then TLSv1_3_method),
// each run required to start (must_run), and hands each result to `check` with the version.
void run_each_tls_version(
    loadgen::Config config,
    const std::function<void(const loadgen::RunResult&, const char* protocol)>& check);

// `stampede serve --tls-self-signed` on one core and a free port, as a child process; `port` is 0
// when it did not say its port within 10 s. Stopped by the destructor.
struct TlsServe {
  const TempDir temp_dir;
  const std::string dir = temp_dir.path();
  ChildProcess child{{STAMPEDE_BINARY, "serve", "--tls-self-signed", "--port", "0", "--cores", "1",
                      "-q", "--ready-file", dir + "/port"}};
  int port = wait_for_port_file(dir + "/port", std::chrono::milliseconds(10000));
  std::string url() const { return "https://127.0.0.1:" + std::to_string(port) + "/"; }
};

// The JSON report of `-n 20 -c 2 --cores 1 --json --insecure url` through the binary, checked to
// count 20 requests (or messages) and no error; nullopt (and a test failure) when the run did not
// exit with status 0.
std::optional<nlohmann::json> json_report_of_20(const std::string& url);

// The --proxy tests' fixture: a plain (not TLS) one-core server in-process, and a TestProxy.
class ProxiedPlainServer : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_); }

  std::unique_ptr<server::Server> server_ = start_tls_server(false);
  TestProxy proxy_;
};

// The first error code of a run ("" when none): context for a failed expectation.
std::string first_error(const loadgen::RunResult& r);

}  // namespace stampede::testing
