// TLS to backends (https:// in --backend): requests and health checks over TLS to `stampede
// serve` instances with a throwaway certificate; verified against a CA file, or accepted with
// --backend-insecure; a certificate that does not verify is a connect failure of that backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "lb_support.h"
#include "support/credential_files.h"

namespace stampede::balancer::testing {
namespace {

BackendSpec https_spec(const std::string& name, std::uint16_t port) {
  BackendSpec s = spec(name, port);
  s.tls = true;
  return s;
}

// One serve with a certificate the test keeps (its PEM is the CA file), one self-signed.
class TlsBackends : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    files_ = new stampede::testing::CredentialFiles();
    known_ = new ServeProcess("known", {"--tls-cert", files_->cert(), "--tls-key", files_->key()});
    throwaway_ = new ServeProcess("throwaway", {"--tls-self-signed"});
  }
  // A balancer over `backends` that verifies their certificates against the CA file.
  static std::unique_ptr<Balancer> start_verifying(std::vector<BackendSpec> backends) {
    BalancerConfig config = base_config(std::move(backends));
    config.backend_ca = files_->cert();
    return start_balancer(config);
  }
  static void TearDownTestSuite() {
    delete known_;
    delete throwaway_;
    delete files_;
  }

  static stampede::testing::CredentialFiles* files_;  // the certificate is the CA file
  static ServeProcess* known_;
  static ServeProcess* throwaway_;
};

stampede::testing::CredentialFiles* TlsBackends::files_ = nullptr;
ServeProcess* TlsBackends::known_ = nullptr;
ServeProcess* TlsBackends::throwaway_ = nullptr;

// The "served" figure of the backend that answers GET /count through `client`.
std::uint64_t served_via(Client& client) {
  auto r = client.get("/count");
  if (!r || r->status != 200) return 0;
  const auto pos = r->body.find("\"served\":");
  return pos == std::string::npos ? 0 : std::stoull(r->body.substr(pos + 9));
}

// GET / through `lb` is answered 200 by the backend `name`.
void expect_answered_by(const Balancer& lb, const std::string& name) {
  auto r = http_get(lb.port(), "/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->raw;
  EXPECT_EQ(r->header("x-backend"), name);
}

TEST_F(TlsBackends, InsecureReachesSelfSignedBackendsAndChecksThemOverTls) {
  BalancerConfig config = base_config({https_spec("a", throwaway_->port())});
  config.backend_insecure = true;
  config.health_interval = Millis(50);
  // The default timeout would be the interval: a TLS handshake under ASan on a loaded host can
  // take longer than 50 ms, and with fall 1 that one slow check took the backend down (503).
  config.health_timeout = Millis(2000);
  config.health_path = "/";
  config.fall = 1;  // one failed check would take it down
  auto lb = start_balancer(config);
  ASSERT_TRUE(lb);
  Client client(lb->port());
  for (int i = 0; i < 4; ++i) {
    auto r = client.get("/");
    ASSERT_TRUE(r) << i;
    EXPECT_EQ(r->status, 200) << r->raw;
    EXPECT_EQ(r->header("x-backend"), "a");
  }
  const std::uint64_t first = served_via(client);
  ASSERT_GE(first, 4u);
  // The checks reach the backend (which speaks only TLS): its count grows without our requests
  // (GET /count itself is not counted).
  EXPECT_TRUE(eventually([&] { return served_via(client) >= first + 3; },
                         std::chrono::milliseconds(5000), std::chrono::milliseconds(20)));
  EXPECT_TRUE(lb->backend_live("a"));
}

TEST_F(TlsBackends, VerifiesAgainstTheCaFile) {
  auto lb = start_verifying({https_spec("a", known_->port())});
  ASSERT_TRUE(lb);
  expect_answered_by(*lb, "a");
}

// A certificate the CA file does not vouch for: a connect failure of that backend (out of
// rotation); the request goes to the other one, and alone it is a 502.
TEST_F(TlsBackends, UnverifiedCertificateIsAConnectFailureOfThatBackend) {
  auto lb = start_verifying({https_spec("a", throwaway_->port()), https_spec("b", known_->port())});
  ASSERT_TRUE(lb);
  expect_answered_by(*lb, "b");
  EXPECT_FALSE(lb->backend_live("a"));
  EXPECT_TRUE(lb->backend_live("b"));

  BalancerConfig alone = base_config({https_spec("a", throwaway_->port())});
  auto lb2 = start_balancer(alone);  // the system store does not know a throwaway certificate
  ASSERT_TRUE(lb2);
  auto r2 = http_get(lb2->port(), "/");
  ASSERT_TRUE(r2);
  EXPECT_EQ(r2->status, 502) << r2->raw;
  EXPECT_NE(r2->body.find("backend unreachable"), std::string::npos) << r2->body;
}

TEST(TlsBackendOptions, HttpsSpecsAndAnUnreadableCaFile) {
  auto s = parse_backend_spec("a=https://localhost:8443,weight=2");
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->tls);
  EXPECT_EQ(s->address, "localhost:8443");
  EXPECT_EQ(s->weight, 2);
  auto plain = parse_backend_spec("a=http://127.0.0.1:80");
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->tls);
  EXPECT_EQ(plain->address, "127.0.0.1:80");
  auto file = parse_config_json(
      R"({"backend": ["a=https://127.0.0.1:1", {"name": "b", "address": "https://127.0.0.1:2"}],
          "backend-insecure": true, "backend-ca": "/x.pem"})");
  ASSERT_TRUE(file) << file.error().message;
  EXPECT_TRUE(file->backends.at(0).tls);
  EXPECT_TRUE(file->backends.at(1).tls);
  EXPECT_TRUE(file->backend_insecure);
  EXPECT_EQ(file->backend_ca, "/x.pem");

  const auto r = stampede::testing::run_stampede({"balance", "--listen", "127.0.0.1:0", "--backend",
                                                  "a=https://127.0.0.1:1", "--backend-ca",
                                                  "/nonexistent/ca.pem"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.rfind("stampede: --backend-ca /nonexistent/ca.pem: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
}  // namespace stampede::balancer::testing
