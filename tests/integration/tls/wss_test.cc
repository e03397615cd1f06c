// wss:// against the in-process test server with TLS: exact message counts, large messages
// (partial TLS writes, many records per read), session resumption when a client reconnects,
// a plain ws:// CONNECT tunnel through --proxy, and the binary's reports. What wss and https do
// alike (failures by name, the CONNECT tunnel) is in secure_schemes_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "loadgen/runner.h"
#include "server/server.h"
#include "support/process.h"
#include "test_proxy.h"
#include "tls_support.h"

namespace stampede::loadgen {
namespace {

using std::chrono::milliseconds;
using testing::first_error;
using ::testing::HasSubstr;
using testing::must_run;

Config wss_config(const server::Server& s, std::uint64_t messages, std::uint32_t clients) {
  return testing::tls_client_config("wss://127.0.0.1:" + std::to_string(s.port()) + "/chat",
                                    messages, clients);
}

TEST(Wss, ExactCountsAgainstServe) {
  auto s = testing::start_tls_server(true);
  ASSERT_TRUE(s);
  Config c = wss_config(*s, 1000, 10);
  c.cores = 2;
  c.body = "h\xc3\xa9llo over TLS";
  const RunResult r = must_run(c);
  const auto totals = s->stop();
  EXPECT_EQ(r.total_requests, 1000u);
  EXPECT_EQ(r.total_errors, 0u) << first_error(r);
  EXPECT_EQ(r.ws.messages, 1000u);
  EXPECT_EQ(r.connections_opened, 10u);
  EXPECT_EQ(r.tls_handshakes, 10u);
  EXPECT_EQ(r.tls_resumed, 0u);
  EXPECT_EQ(totals.requests, 1000u);  // the server counts each echoed message
  EXPECT_EQ(totals.connections, 10u);
}

// 1 MiB messages do not fit the socket buffers: the client's TLS writes stop part-way and go on
// when the socket drains, and each reply arrives as many records over many reads.
TEST(Wss, LargeMessagesGoThroughWhole) {
  auto s = testing::start_tls_server(true);
  ASSERT_TRUE(s);
  Config c = wss_config(*s, 20, 2);
  c.body = std::string(1 << 20, 'x');
  const RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 20u);
  EXPECT_EQ(r.total_errors, 0u) << first_error(r);
  EXPECT_EQ(r.ws.messages, 20u);
  EXPECT_EQ(r.connections_opened, 2u);
  EXPECT_GT(r.bytes_read, 20u << 20);  // every echo read back whole
  EXPECT_EQ(s->stop().requests, 20u);
}

// Every second message is answered by a close (1011): the client reconnects each time, and every
// handshake after a client's first resumes the session of its previous socket.
TEST(Wss, ReconnectsResumeTheirSession) {
  auto s = testing::start_tls_server(true, 500, 50);
  ASSERT_TRUE(s);
  const auto check = [](const RunResult& r, const char* protocol) {
    EXPECT_EQ(r.total_requests, 200u) << protocol;
    EXPECT_EQ(r.ws.messages, 100u) << protocol;
    EXPECT_EQ(r.total_errors, 100u) << protocol;
    EXPECT_EQ(r.error_codes, (std::map<std::string, std::uint64_t>{{"close 1011", 100}}))
        << protocol;
    EXPECT_GT(r.connections_opened, 4u) << protocol;
    EXPECT_EQ(r.tls_handshakes, r.connections_opened) << protocol;
    EXPECT_EQ(r.tls_resumed, r.connections_opened - 4) << protocol;
  };
  testing::run_each_tls_version(wss_config(*s, 200, 4), check);
  EXPECT_EQ(s->stop().requests, 400u);
}

using Proxy = testing::ProxiedPlainServer;

// A plain WebSocket goes through a CONNECT tunnel too (a proxy cannot relay an upgraded
// connection as a request), with no TLS inside.
TEST_F(Proxy, WsGoesThroughConnect) {
  Config c = wss_config(*server_, 100, 2);
  c.url = "ws://127.0.0.1:" + std::to_string(server_->port()) + "/chat";
  c.proxy = proxy_.url();
  const RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 100u);
  EXPECT_EQ(r.total_errors, 0u) << first_error(r);
  EXPECT_EQ(r.ws.messages, 100u);
  EXPECT_EQ(r.connections_opened, 2u);
  EXPECT_EQ(r.tls_handshakes, 0u);
  EXPECT_EQ(server_->stop().requests, 100u);
  EXPECT_TRUE(proxy_.saw(2, "CONNECT 127.0.0.1:" + std::to_string(server_->port()) + " HTTP/1.1"));
}

// The binaries as a user runs them: `stampede serve --tls-self-signed` answers upgrades over
// TLS, and the reports say how many sessions were resumed.
TEST(WssBinary, TextAndJsonReports) {
  const testing::TlsServe serve;
  ASSERT_GT(serve.port, 0) << serve.child.stderr_text();
  const std::string url = "wss://127.0.0.1:" + std::to_string(serve.port) + "/chat";
  auto r = testing::run_command(
      {STAMPEDE_BINARY, "-n", "100", "-c", "5", "--cores", "1", "--quiet", "--insecure", url},
      milliseconds(20000));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Completed requests:  100\n"));
  EXPECT_THAT(r.out, HasSubstr("Total errors:        0\n"));
  EXPECT_THAT(r.out, HasSubstr("TLS sessions resumed: 0 of 5 handshakes\n"));
  EXPECT_THAT(r.out, HasSubstr("WebSocket"));

  const auto j = testing::json_report_of_20(url);
  ASSERT_TRUE(j);
  EXPECT_EQ((*j)["tlsHandshakes"], 2);
  EXPECT_EQ((*j)["tlsSessionsResumed"], 0);
  EXPECT_EQ((*j)["websocket"]["messages"], 20);

  r = testing::run_command({STAMPEDE_BINARY, "-n", "4", "-c", "2", "--cores", "1", "--quiet", url},
                           milliseconds(20000));
  EXPECT_THAT(r.out, HasSubstr("CERT_VERIFY_FAILED"));
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("Sanitizer")));
}

}  // namespace
}  // namespace stampede::loadgen
