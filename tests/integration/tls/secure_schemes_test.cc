// What https:// and wss:// do alike, one suite run for each scheme against the in-process test
// server: TLS failures counted by name while the run goes on, and the CONNECT tunnel through
// --proxy, opened and refused.
#include <gtest/gtest.h>

#include <map>
#include <ostream>
#include <string>

#include "loadgen/runner.h"
#include "server/server.h"
#include "test_proxy.h"
#include "tls_support.h"

namespace stampede::loadgen {
namespace {

using testing::first_error;
using testing::must_run;

// What differs between the schemes.
struct Scheme {
  const char* scheme;        // "https", "wss"; also the test's name suffix
  const char* path;          // the URL's path
  bool websocket;            // requests are WebSocket messages
  const char* old_protocol;  // a TLS version the server does not take (it takes 1.2 and 1.3)
};

// Names the parameter in test listings (instead of its bytes, pointers included).
void PrintTo(const Scheme& scheme, std::ostream* os) {
  *os << scheme.scheme;
}

class SecureScheme : public ::testing::TestWithParam<Scheme> {
 protected:
  // `requests` requests (messages for wss) over `clients` connections to the server `s`.
  static Config config(const server::Server& s, std::uint64_t requests, std::uint32_t clients) {
    const Scheme& scheme = GetParam();
    return testing::tls_client_config(
        std::string(scheme.scheme) + "://127.0.0.1:" + std::to_string(s.port()) + scheme.path,
        requests, clients);
  }
};

TEST_P(SecureScheme, UntrustedCertificateIsCountedByNameAndTheRunGoesOn) {
  auto s = testing::start_tls_server(true);
  ASSERT_TRUE(s);
  Config c = config(*s, 6, 2);
  c.insecure = false;
  const RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 6u);
  EXPECT_EQ(r.total_errors, 6u);
  if (GetParam().websocket) {
    EXPECT_EQ(r.ws.messages, 0u);
  }
  EXPECT_EQ(r.error_codes, (std::map<std::string, std::uint64_t>{{"CERT_VERIFY_FAILED", 6}}));
  EXPECT_EQ(r.tls_handshakes, 0u);
  EXPECT_EQ(s->stop().requests, 0u);
}

TEST_P(SecureScheme, NoCommonProtocolVersionIsCountedByName) {
  auto s = testing::start_tls_server(true);
  ASSERT_TRUE(s);
  Config c = config(*s, 4, 2);
  c.secure_protocol = GetParam().old_protocol;
  const RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 4u);
  EXPECT_EQ(r.error_codes, (std::map<std::string, std::uint64_t>{{"TLS_PROTOCOL_VERSION", 4}}));
}

TEST_P(SecureScheme, PlainServerIsAHandshakeFailure) {
  auto s = testing::start_tls_server(false);
  ASSERT_TRUE(s);
  const RunResult r = must_run(config(*s, 4, 2));
  EXPECT_EQ(r.total_requests, 4u);
  EXPECT_EQ(r.error_codes, (std::map<std::string, std::uint64_t>{{"TLS_HANDSHAKE_FAILED", 4}}));
}

// One tunnel (and one handshake) per client.
TEST_P(SecureScheme, GoesThroughConnect) {
  auto s = testing::start_tls_server(true);
  ASSERT_TRUE(s);
  testing::TestProxy proxy;
  Config c = config(*s, 300, 3);
  if (!GetParam().websocket) c.keep_alive = true;  // a WebSocket keeps its socket anyway
  c.proxy = proxy.url();
  const RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 300u);
  EXPECT_EQ(r.total_errors, 0u) << first_error(r);
  if (GetParam().websocket) {
    EXPECT_EQ(r.ws.messages, 300u);
  }
  EXPECT_EQ(r.tls_handshakes, 3u);
  EXPECT_EQ(s->stop().requests, 300u);
  EXPECT_TRUE(proxy.saw(3, "CONNECT 127.0.0.1:" + std::to_string(s->port()) + " HTTP/1.1"));
}

TEST_P(SecureScheme, RefusedTunnelIsCountedByName) {
  auto s = testing::start_tls_server(true);
  ASSERT_TRUE(s);
  testing::TestProxy proxy(/*refuse_connect=*/true);
  Config c = config(*s, 4, 2);
  c.proxy = proxy.url();
  const RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 4u);
  EXPECT_EQ(r.error_codes, (std::map<std::string, std::uint64_t>{{"PROXY_CONNECT_FAILED", 4}}));
  EXPECT_EQ(s->stop().requests, 0u);
}

INSTANTIATE_TEST_SUITE_P(Schemes, SecureScheme,
                         ::testing::Values(Scheme{"https", "/", false, "TLSv1_method"},
                                           Scheme{"wss", "/chat", true, "TLSv1_1_method"}),
                         [](const ::testing::TestParamInfo<Scheme>& info) {
                           return std::string(info.param.scheme);
                         });

}  // namespace
}  // namespace stampede::loadgen
