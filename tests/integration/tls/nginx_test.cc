// https:// against a TLS server no one here wrote: nginx (Debian's), one process, on a free
// loopback port with its own throwaway certificate, started and stopped by the test
// (support/nginx.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "loadgen/runner.h"
#include "support/nginx.h"
#include "tls/self_signed.h"
#include "tls_support.h"

namespace stampede::loadgen {
namespace {

using testing::must_run;
using testing::Nginx;
using testing::NginxOptions;

Config config_for(const Nginx& nginx, std::uint64_t requests, std::uint32_t clients) {
  return testing::tls_client_config(nginx.url(), requests, clients);
}

class AgainstNginx : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Nginx::installed()) GTEST_SKIP() << "nginx is not installed (make test-deps)";
    const auto credentials = tls::make_self_signed().value();
    nginx_ = std::make_unique<Nginx>(
        NginxOptions{NginxOptions::Listen::Tls, credentials.cert_pem, credentials.key_pem});
    ASSERT_TRUE(nginx_->ready()) << nginx_->error_log();
  }
  std::unique_ptr<Nginx> nginx_;
};

TEST_F(AgainstNginx, ExactCountsWithKeepAlive) {
  Config c = config_for(*nginx_, 500, 5);
  c.keep_alive = true;
  const RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 500u);
  EXPECT_EQ(r.total_errors, 0u);
  EXPECT_EQ(r.status_counts.at(200), 500u);
  EXPECT_EQ(r.tls_handshakes, 5u);
}

TEST_F(AgainstNginx, ReconnectsResumeTheirSession) {
  const RunResult r = must_run(config_for(*nginx_, 100, 4));
  EXPECT_EQ(r.total_requests, 100u);
  EXPECT_EQ(r.total_errors, 0u) << nginx_->error_log();
  EXPECT_EQ(r.tls_handshakes, 100u);
  EXPECT_EQ(r.tls_resumed, 96u);
}

TEST_F(AgainstNginx, UntrustedCertificateIsCountedByName) {
  Config c = config_for(*nginx_, 4, 2);
  c.insecure = false;
  const RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 4u);
  EXPECT_EQ(r.error_codes, (std::map<std::string, std::uint64_t>{{"CERT_VERIFY_FAILED", 4}}));
}

}  // namespace
}  // namespace stampede::loadgen
