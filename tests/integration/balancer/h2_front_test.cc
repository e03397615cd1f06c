// The balancer's HTTP/2 front (h2c with prior knowledge), against peers no one here wrote
// (h2load, curl) and an nghttp2 client session in the test over a socket for what they cannot
// send: per-stream balancing (h2load's 300 streams on one connection split 100/100/100), the
// request translated to HTTP/1.1 (Host from :authority, chunked without content-length), a
// failing backend answering one stream 502 while the connection lives, and GOAWAY
// ENHANCE_YOUR_CALM for a PING flood, a rapid reset (CVE-2023-44487) and an HPACK bomb, after
// which the balancer still answers.
#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "h2_peer.h"
#include "lb_support.h"
#include "support/accept_loop.h"
#include "support/h2_client_session.h"
#include "support/loopback.h"
#include "support/proc_stats.h"
#include "support/process.h"

namespace stampede::balancer::testing {
namespace h2front {

constexpr const char* kH2load = "/usr/bin/h2load";
constexpr const char* kCurl = "/usr/bin/curl";
constexpr std::uint32_t kEnhanceYourCalm = 11;

using stampede::testing::h2_field;

// A chunked body's data (RFC 9112 7.1; no extensions, no trailers).
std::string dechunk(std::string_view body) {
  std::string data;
  for (int parts = 0; parts < 100000 && !body.empty(); ++parts) {
    const std::size_t eol = body.find("\r\n");
    if (eol == std::string_view::npos) return "(bad framing)";
    const std::size_t size = std::stoul(std::string(body.substr(0, eol)), nullptr, 16);
    if (size == 0) break;
    data.append(body.substr(eol + 2, size));
    body.remove_prefix(std::min(body.size(), eol + 2 + size + 2));
  }
  return data;
}

TEST(H2Front, H2loadStreamsOnOneConnectionAreBalancedEachAndCountsAddUp) {
  if (access(kH2load, X_OK) != 0) GTEST_SKIP() << kH2load << " missing (nghttp2-client)";
  ServeProcess a("a"), b("b"), c("c");
  ASSERT_NE(a.port(), 0);
  ASSERT_NE(b.port(), 0);
  ASSERT_NE(c.port(), 0);
  auto lb =
      start_balancer(base_config({spec("a", a.port()), spec("b", b.port()), spec("c", c.port())}));
  ASSERT_TRUE(lb);
  const std::string url = "http://127.0.0.1:" + std::to_string(lb->port()) + "/";
  const auto run = stampede::testing::run_command(
      {kH2load, "-c", "1", "-m", "10", "-n", "300", url}, std::chrono::seconds(20));
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("300 succeeded, 0 failed, 0 errored"), std::string::npos) << run.out;
  // One connection, 300 streams: requests, not connections, are balanced.
  EXPECT_EQ(a.served(), 100u);
  EXPECT_EQ(b.served(), 100u);
  EXPECT_EQ(c.served(), 100u);
  for (const char* name : {"a", "b", "c"}) {
    const nlohmann::json s = backend_stats(*lb, name);
    EXPECT_EQ(s["sent"], 100) << name;
    EXPECT_EQ(s["responses"], 100) << name;
    EXPECT_EQ(s["in_flight"], 0) << name;
  }
}

TEST(H2Front, CurlPriorKnowledgePostReachesTheBackendAsHttp11) {
  if (access(kCurl, X_OK) != 0) GTEST_SKIP() << kCurl << " missing";
  EchoBehindBalancer setup;
  ASSERT_TRUE(setup.ok());
  auto& [echo, lb] = setup;
  const std::string url = "http://127.0.0.1:" + std::to_string(lb->port()) + "/echo?q=1";
  const auto run =
      stampede::testing::run_command({kCurl, "-sS", "-i", "--http2-prior-knowledge", "--max-time",
                                      "5", "-d", "hello", "-H", "cookie: a=1", url},
                                     std::chrono::seconds(10));
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out.rfind("HTTP/2 200", 0), 0u) << run.out;
  EXPECT_NE(run.out.find("x-backend: e\r\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\r\n\r\nhello"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("connection:"), std::string::npos) << run.out;
  ASSERT_EQ(echo.request_count(), 1u);
  const std::string sent = echo.requests()[0];
  EXPECT_EQ(sent.rfind("POST /echo?q=1 HTTP/1.1\r\n", 0), 0u) << sent;
  EXPECT_NE(sent.find("Host: 127.0.0.1:" + std::to_string(lb->port()) + "\r\n"), std::string::npos)
      << sent;
  EXPECT_NE(sent.find("content-length: 5\r\n"), std::string::npos) << sent;
  EXPECT_NE(sent.find("X-Forwarded-Proto: http\r\n"), std::string::npos) << sent;
}

TEST(H2Front, BodyWithoutContentLengthGoesChunkedAndCookiesAreJoined) {
  EchoBehindBalancer setup;
  ASSERT_TRUE(setup.ok());
  auto& [echo, lb] = setup;
  H2Peer peer(lb->port());
  const std::int32_t id =
      peer.request("POST", "/up", {h2_field("cookie", "a=1"), h2_field("cookie", "b=2")},
                   std::string(40000, 'z'));
  ASSERT_TRUE(peer.pump([&] { return peer.answered(id); }));
  EXPECT_EQ(peer.answers[id].status, 200);
  EXPECT_EQ(peer.answers[id].headers["x-backend"], "e");
  ASSERT_EQ(echo.request_count(), 1u);
  const std::string sent = echo.requests()[0];
  // The echo backend answers the body as it came, chunk framing included.
  EXPECT_EQ(dechunk(peer.answers[id].body), std::string(40000, 'z'));
  EXPECT_NE(sent.find("Host: front.test\r\n"), std::string::npos) << sent.substr(0, 400);
  EXPECT_NE(sent.find("cookie: a=1; b=2\r\n"), std::string::npos) << sent.substr(0, 400);
  EXPECT_NE(sent.find("Transfer-Encoding: chunked\r\n"), std::string::npos) << sent.substr(0, 400);
  EXPECT_EQ(sent.substr(sent.size() - 5), "0\r\n\r\n");
}

TEST(H2Front, AFailingBackendAnswersItsStream502AndTheConnectionLives) {
  // A backend that closes every connection at once, unanswered; no retries.
  stampede::testing::AcceptLoop closer([](int) {});
  BalancerConfig config = base_config({spec("x", closer.port())});
  config.retries = 0;
  auto lb = start_balancer(config);
  ASSERT_TRUE(lb);
  H2Peer peer(lb->port());
  const std::int32_t failed = peer.request("GET", "/");
  ASSERT_TRUE(peer.pump([&] { return peer.answered(failed); }));
  EXPECT_EQ(peer.answers[failed].status, 502);
  EXPECT_EQ(peer.answers[failed].headers["x-backend"], "x");
  const std::int32_t stats = peer.request("GET", "/lb-stats");
  ASSERT_TRUE(peer.pump([&] { return peer.answered(stats); }));
  EXPECT_EQ(peer.answers[stats].status, 200);
  EXPECT_EQ(peer.goaway_code, -1);
  EXPECT_FALSE(peer.eof);
  EXPECT_EQ(nlohmann::json::parse(peer.answers[stats].body)["replies"]["502"], 1);
}

TEST(H2Front, PingFloodGetsGoawayEnhanceYourCalm) {
  EchoBehindBalancer setup;
  ASSERT_TRUE(setup.ok());
  auto& [echo, lb] = setup;
  H2Peer peer(lb->port());
  for (int i = 0; i < 600; ++i)
    nghttp2_submit_ping(peer.session(), NGHTTP2_FLAG_NONE, nullptr);
  ASSERT_TRUE(peer.pump([&] { return peer.goaway_code >= 0; }));
  EXPECT_EQ(peer.goaway_code, static_cast<int>(kEnhanceYourCalm));
  EXPECT_EQ(fresh_get_status(lb->port()), 200);
}

TEST(H2Front, RapidResetIsCutOffBeforeItReachesBackends) {
  EchoBehindBalancer setup;
  ASSERT_TRUE(setup.ok());
  auto& [echo, lb] = setup;
  H2Peer peer(lb->port());
  std::string burst;  // HEADERS then RST_STREAM, 600 times, in one write
  for (int i = 0; i < 600; ++i) {
    const std::int32_t id = peer.request("GET", "/reset-me");
    burst += peer.take();
    nghttp2_submit_rst_stream(peer.session(), NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
    burst += peer.take();
  }
  ASSERT_TRUE(peer.send_raw(burst));
  ASSERT_TRUE(peer.pump([&] { return peer.goaway_code >= 0; }));
  EXPECT_EQ(peer.goaway_code, static_cast<int>(kEnhanceYourCalm));
  // Streams opened and reset in one read are never dispatched; one split across reads may be.
  EXPECT_LE(echo.request_count(), 4u);
  EXPECT_EQ(fresh_get_status(lb->port()), 200);
  EXPECT_TRUE(eventually([&] { return backend_stats(*lb, "e")["in_flight"] == 0; }, 2000ms));
}

TEST(H2Front, HpackBombEndsTheSessionWithEnhanceYourCalm) {
  EchoBehindBalancer setup;
  ASSERT_TRUE(setup.ok());
  auto& [echo, lb] = setup;
  H2Peer peer(lb->port());
  const std::string big(20000, 'h');
  peer.request("GET", "/", {h2_field("x-big", big)});
  ASSERT_TRUE(peer.pump([&] { return peer.goaway_code >= 0; }));
  EXPECT_EQ(peer.goaway_code, static_cast<int>(kEnhanceYourCalm));
  EXPECT_EQ(echo.request_count(), 0u);
  EXPECT_EQ(fresh_get_status(lb->port()), 200);
}

TEST(H2Front, AClientThatNeverOpensItsWindowHoldsBoundedMemory) {
  // A backend that answers every connection's request with 20 MB, written as fast as taken.
  stampede::testing::AcceptLoop big(
      [](int fd) {
        char head[4096];
        if (::recv(fd, head, sizeof head, 0) <= 0) return;
        std::string out = "HTTP/1.1 200 OK\r\nContent-Length: 20000000\r\n\r\n";
        if (!stampede::testing::send_all(fd, out)) return;
        const std::string block(64 * 1024, 'x');
        for (std::size_t sent = 0; sent < 20000000; sent += block.size()) {
          if (!stampede::testing::send_all(fd, block)) return;
        }
      },
      stampede::testing::AcceptLoop::Threads::PerConnection);
  auto lb = start_balancer(base_config({spec("a", big.port())}));
  ASSERT_TRUE(lb);
  const long before = stampede::testing::memory(getpid()).rss_kib;
  {
    H2Peer peer(lb->port(), 0);
    std::vector<std::int32_t> ids;
    for (int i = 0; i < 8; ++i)
      ids.push_back(peer.request("GET", "/big"));  // 160 MB if nothing held back
    ASSERT_TRUE(peer.pump([&] {
      for (std::int32_t id : ids) {
        if (peer.answers[id].status == 0) return false;
      }
      return true;
    }));
    // The backends are answering: for half a second the balancer's memory must not follow.
    const bool grew = eventually(
        [&] { return stampede::testing::memory(getpid()).rss_kib - before > 40 * 1024; }, 500ms);
    EXPECT_FALSE(grew) << "rss grew by " << stampede::testing::memory(getpid()).rss_kib - before
                       << " KiB";
    for (std::int32_t id : ids)
      EXPECT_TRUE(peer.answers[id].body.empty());
  }
  // The client left: its streams' attempts are cancelled, nothing stays in flight.
  EXPECT_TRUE(eventually([&] { return backend_stats(*lb, "a")["in_flight"] == 0; }, 2000ms));
  EXPECT_EQ(fresh_get_status(lb->port()), 200);
}

}  // namespace h2front
}  // namespace stampede::balancer::testing
