// https:// against a TLS server no one here wrote: nginx (Debian's), one process, on a free
// loopback port with its own throwaway certificate, started and stopped by the test.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "loadgen/runner.h"
#include "support/loopback.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "tls/self_signed.h"
#include "tls_support.h"

namespace stampede::loadgen {
namespace {

using std::chrono::milliseconds;

constexpr const char* kNginx = "/usr/sbin/nginx";

std::string nginx_config(const std::string& dir, int port) {
  return "daemon off;\nmaster_process off;\nworker_processes 1;\npid " + dir +
         "/nginx.pid;\nerror_log " + dir + "/error.log warn;\n" +
         "events { worker_connections 1024; }\n"
         "http {\n  access_log off;\n  client_body_temp_path " +
         dir + "/body;\n  proxy_temp_path " + dir + "/proxy;\n  fastcgi_temp_path " + dir +
         "/fastcgi;\n  uwsgi_temp_path " + dir + "/uwsgi;\n  scgi_temp_path " + dir +
         "/scgi;\n  server {\n    listen 127.0.0.1:" + std::to_string(port) +
         " ssl;\n    ssl_certificate " + dir + "/cert.pem;\n    ssl_certificate_key " + dir +
         "/key.pem;\n    location / { return 200 \"OK\\n\"; }\n  }\n}\n";
}

// nginx in the foreground, one process. It writes its pid file once it listens.
class Nginx {
 public:
  Nginx() : dir_(temp_dir_.path()), port_(stampede::testing::unused_loopback_port()) {
    const auto credentials = tls::make_self_signed().value();
    std::ofstream(dir_ + "/cert.pem") << credentials.cert_pem;
    std::ofstream(dir_ + "/key.pem") << credentials.key_pem;
    std::ofstream(dir_ + "/nginx.conf") << nginx_config(dir_, port_);
    child_ = std::make_unique<testing::ChildProcess>(std::vector<std::string>{
        kNginx, "-p", dir_, "-e", dir_ + "/error.log", "-c", dir_ + "/nginx.conf"});
    // The pid is a number like a port: the same bounded wait for a file.
    ready_ = testing::wait_for_port_file(dir_ + "/nginx.pid", milliseconds(10000)) > 0;
  }
  ~Nginx() {
    child_->signal(SIGQUIT);
    child_->wait(milliseconds(5000));
    child_.reset();
  }
  bool ready() const { return ready_; }
  std::string url() const { return "https://127.0.0.1:" + std::to_string(port_) + "/"; }
  std::string log() const {
    std::ifstream in(dir_ + "/error.log");
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

 private:
  testing::TempDir temp_dir_;
  std::string dir_;
  int port_;
  std::unique_ptr<testing::ChildProcess> child_;
  bool ready_ = false;
};

using testing::must_run;

Config config_for(const Nginx& nginx, std::uint64_t requests, std::uint32_t clients) {
  return testing::tls_client_config(nginx.url(), requests, clients);
}

class AgainstNginx : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kNginx)) GTEST_SKIP() << "nginx is not installed (make test-deps)";
    nginx_ = std::make_unique<Nginx>();
    ASSERT_TRUE(nginx_->ready()) << nginx_->log();
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
  EXPECT_EQ(r.total_errors, 0u) << nginx_->log();
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
