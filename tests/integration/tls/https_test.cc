// https:// against the in-process test server with TLS: exact counts with and without
// keep-alive, session resumption on reconnects, and plain requests through --proxy. What https
// and wss do alike (failures by name, the CONNECT tunnel) is in secure_schemes_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

#include "loadgen/runner.h"
#include "server/server.h"
#include "test_proxy.h"
#include "tls_support.h"

namespace stampede::loadgen {
namespace {

using testing::must_run;

Config https_config(const server::Server& s, std::uint64_t requests, std::uint32_t clients) {
  return testing::tls_client_config("https://127.0.0.1:" + std::to_string(s.port()) + "/", requests,
                                    clients);
}

TEST(Https, ExactCountsWithKeepAlive) {
  auto s = testing::start_tls_server(true);
  ASSERT_TRUE(s);
  Config c = https_config(*s, 1000, 10);
  c.keep_alive = true;
  c.cores = 2;
  const RunResult r = must_run(c);
  const auto totals = s->stop();
  EXPECT_EQ(r.total_requests, 1000u);
  EXPECT_EQ(r.total_errors, 0u);
  EXPECT_EQ(r.status_counts.at(200), 1000u);
  EXPECT_EQ(totals.requests, 1000u);
  EXPECT_EQ(totals.connections, 10u);
  EXPECT_EQ(r.tls_handshakes, 10u);
  EXPECT_EQ(r.tls_resumed, 0u);
}

TEST(Https, ReconnectsResumeTheirSession) {
  auto s = testing::start_tls_server(true);
  ASSERT_TRUE(s);
  const auto check = [](const RunResult& r, const char* protocol) {
    EXPECT_EQ(r.total_requests, 200u) << protocol;
    EXPECT_EQ(r.total_errors, 0u) << protocol;
    EXPECT_EQ(r.connections_opened, 200u) << protocol;
    EXPECT_EQ(r.tls_handshakes, 200u) << protocol;
    // Each client's first handshake is a full one; every later one resumes.
    EXPECT_EQ(r.tls_resumed, 196u) << protocol;
  };
  testing::run_each_tls_version(https_config(*s, 200, 4), check);
  EXPECT_EQ(s->stop().requests, 400u);
}

using Proxy = testing::ProxiedPlainServer;

TEST_F(Proxy, PlainRequestsUseTheAbsoluteForm) {
  const std::string origin = "http://127.0.0.1:" + std::to_string(server_->port());
  Config c = testing::tls_client_config(origin + "/path?q=1", 20, 2);  // insecure: no TLS here
  c.proxy = proxy_.url();
  const RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 20u);
  EXPECT_EQ(r.total_errors, 0u);
  EXPECT_EQ(server_->stop().requests, 20u);
  EXPECT_TRUE(proxy_.saw(20, "GET " + origin + "/path?q=1 HTTP/1.1"));
}

}  // namespace
}  // namespace stampede::loadgen
