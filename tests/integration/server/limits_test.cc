// Bad input gets an HTTP answer and a closed connection, never a crash; idle and slow clients
// are timed out. After each case the server must still serve a fresh connection.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <string>

#include "fixture.h"

namespace stampede::server::testing {
namespace {

using Clock = std::chrono::steady_clock;

ServerOptions tight_limits() {
  ServerOptions o;
  o.max_header_bytes = 1024;
  o.max_uri_bytes = 256;
  o.max_body_bytes = 1000;
  return o;
}

// Sends `request`, expects `status` with Connection: close, then the connection closed.
void expect_refused(Server& server, const std::string& request, int status) {
  RawClient client(server.port());
  ASSERT_TRUE(client.connected());
  ASSERT_TRUE(client.send(request));
  auto reply = client.read_reply();
  ASSERT_TRUE(reply) << request.substr(0, 80);
  EXPECT_EQ(reply->status, status) << request.substr(0, 80);
  EXPECT_EQ(reply->connection, "close");
  EXPECT_TRUE(client.closed_by_peer()) << request.substr(0, 80);
}

void expect_still_serving(Server& server) {
  RawClient client(server.port());
  auto reply = client.exchange(get("/"));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
}

struct BadCase {
  const char* name;
  std::string request;
  int status;
};

std::vector<BadCase> bad_cases() {
  return {
      {"garbage request line", "GARBAGE\r\n\r\n", 400},
      {"HTTP/0.9 request line (no version)", "GET /\r\n\r\n", 505},
      {"bad method characters", "G@T / HTTP/1.1\r\nHost: x\r\n\r\n", 400},
      {"header without colon", "GET / HTTP/1.1\r\nHost x\r\n\r\n", 400},
      {"space in header name", "GET / HTTP/1.1\r\nBad Name: v\r\n\r\n", 400},
      {"bare LF", "GET / HTTP/1.1\nHost: x\n\n", 400},
      {"obs-fold", "GET / HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n  2\r\n\r\n", 400},
      {"content-length and chunked",
       "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
       "0\r\n\r\n",
       400},
      {"two content-lengths",
       "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", 400},
      {"bad content-length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5x\r\n\r\nhello", 400},
      {"bad chunk size",
       "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n", 400},
      {"head over the limit",
       "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(2000, 'a') + "\r\n\r\n", 431},
      {"many headers over the limit",
       [] {
         std::string r = "GET / HTTP/1.1\r\n";
         for (int i = 0; i < 200; ++i)
           r += "X-H" + std::to_string(i) + ": v\r\n";
         return r + "\r\n";
       }(),
       431},
      {"target over the limit", "GET /" + std::string(1000, 'u') + " HTTP/1.1\r\n\r\n", 414},
      {"content-length over the limit",
       "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n" + std::string(5000, 'b'), 413},
      {"chunked body over the limit",
       "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
       "800\r\n" +
           std::string(2048, 'b') + "\r\n0\r\n\r\n",
       413},
      {"HTTP/2.0 request line", "GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505},
      {"HTTP/1.2 request line", "GET / HTTP/1.2\r\nHost: x\r\n\r\n", 505},
      {"HTTP/1.1 without Host", "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", 400},
      {"two Hosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400},
      {"bare CR in a header line", "GET / HTTP/1.1\r\nHost: x\rX-A: 1\r\n\r\n", 400},
      {"chunk data not followed by CRLF",
       "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n",
       400},
      {"space after the chunk size",
       "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n0\r\n\r\n",
       400},
      {"trailers over the head limit",
       "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: " +
           std::string(2000, 't') + "\r\n\r\n",
       431},
      {"chunk extensions over the head limit",
       "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1;" +
           std::string(2000, 'e') + "\r\nb\r\n0\r\n\r\n",
       400},
  };
}

TEST(ServerLimits, EveryBadRequestGetsItsStatusAndTheServerStaysUp) {
  auto server = start_server(tight_limits());
  ASSERT_TRUE(server);
  const auto cases = bad_cases();
  for (const BadCase& c : cases) {
    SCOPED_TRACE(c.name);
    expect_refused(*server, c.request, c.status);
    expect_still_serving(*server);
  }
  const ServerTotals totals = server->stop();
  EXPECT_EQ(totals.bad_requests, cases.size());
  EXPECT_EQ(totals.requests, cases.size());  // the good request after each bad one
}

TEST(ServerLimits, BadRequestAfterGoodOnesOnTheSameConnection) {
  auto server = start_server(tight_limits());
  ASSERT_TRUE(server);
  RawClient client(server->port());
  ASSERT_TRUE(client.send(get("/") + get("/") + "BOGUS\r\n\r\n" + get("/")));
  auto r1 = client.read_reply();
  auto r2 = client.read_reply();
  auto r3 = client.read_reply();
  ASSERT_TRUE(r1 && r2 && r3);
  EXPECT_EQ(r1->status, 200);
  EXPECT_EQ(r2->status, 200);
  EXPECT_EQ(r3->status, 400);
  EXPECT_TRUE(client.closed_by_peer());
}

TEST(ServerLimits, RefusalIsDeliveredWhileTheClientKeepsSending) {
  // A 413 decided from the head, while the client still pushes its body: the lingering close
  // must keep the answer from being lost to a connection reset.
  auto server = start_server(tight_limits());
  ASSERT_TRUE(server);
  RawClient client(server->port());
  ASSERT_TRUE(client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n"));
  const std::string chunk(65536, 'b');
  for (int i = 0; i < 8; ++i) {
    if (!client.send(chunk)) break;
  }
  auto reply = client.read_reply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 413);
  expect_still_serving(*server);
}

// A test server whose header timeout, or idle timeout, is `limit`.
std::unique_ptr<server::Server> with_header_timeout(std::chrono::milliseconds limit) {
  return start_server_with([limit](server::ServerOptions& o) { o.header_timeout = limit; });
}
std::unique_ptr<server::Server> with_idle_timeout(std::chrono::milliseconds limit) {
  return start_server_with([limit](server::ServerOptions& o) { o.idle_timeout = limit; });
}

TEST(ServerLimits, HeaderTimeoutClosesASlowClient) {
  auto server = with_header_timeout(std::chrono::milliseconds(200));
  ASSERT_TRUE(server);
  RawClient client(server->port());
  const auto start = Clock::now();
  ASSERT_TRUE(client.send("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: "));
  auto reply = client.read_reply();
  const auto ms = elapsed_ms(start);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 408);
  EXPECT_TRUE(client.closed_by_peer());
  EXPECT_GE(ms, 200);
  EXPECT_LT(ms, 4000);
  expect_still_serving(*server);
  EXPECT_EQ(server->stop().bad_requests, 1u);
}

TEST(ServerLimits, HeaderTimeoutIsNotResetByTrickling) {
  auto server = with_header_timeout(std::chrono::milliseconds(300));
  ASSERT_TRUE(server);
  RawClient client(server->port());
  const auto start = Clock::now();
  ASSERT_TRUE(client.send("GET / HTTP/1.1\r\n"));
  // One header byte every 20 ms, each arriving in time, until the server answers.
  for (int i = 0; i < 150 && !client.readable(std::chrono::milliseconds(20)); ++i) {
    if (!client.send("X")) break;
  }
  auto reply = client.read_reply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 408);
  EXPECT_LT(elapsed_ms(start), 3000);
}

TEST(ServerLimits, SilentConnectionIsClosedAfterTheHeaderTimeout) {
  auto server = with_header_timeout(std::chrono::milliseconds(150));
  ASSERT_TRUE(server);
  RawClient client(server->port());
  const auto start = Clock::now();
  EXPECT_TRUE(client.closed_by_peer());
  EXPECT_GE(elapsed_ms(start), 150);
}

TEST(ServerLimits, IdleKeepAliveConnectionIsClosedAfterTheIdleTimeout) {
  auto server = with_idle_timeout(std::chrono::milliseconds(200));
  ASSERT_TRUE(server);
  RawClient client(server->port());
  ASSERT_TRUE(client.exchange(get("/")));
  const auto start = Clock::now();
  EXPECT_TRUE(client.closed_by_peer());
  const auto ms = elapsed_ms(start);
  EXPECT_GE(ms, 190);
  EXPECT_LT(ms, 4000);
}

TEST(ServerLimits, ActiveConnectionOutlivesTheIdleTimeout) {
  auto server = with_idle_timeout(std::chrono::milliseconds(300));
  ASSERT_TRUE(server);
  RawClient client(server->port());
  const auto start = Clock::now();
  int answered = 0;
  while (elapsed_ms(start) < 900) {
    auto reply = client.exchange(get("/"));
    ASSERT_TRUE(reply) << "closed after " << elapsed_ms(start) << " ms";
    ++answered;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_GT(answered, 5);
}

TEST(ServerLimits, RequestCutShortByTheClient) {
  auto server = start_server();
  ASSERT_TRUE(server);
  RawClient client(server->port());
  ASSERT_TRUE(client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nshort"));
  ::shutdown(client.fd(), SHUT_WR);
  auto reply = client.read_reply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 400);
  EXPECT_TRUE(client.closed_by_peer());
  expect_still_serving(*server);
}

TEST(ServerLimits, HalfCloseAfterACompleteRequestStillGetsTheAnswer) {
  auto server = start_server();
  ASSERT_TRUE(server);
  RawClient client(server->port());
  ASSERT_TRUE(client.send(get("/?delay=50") + get("/?size=4")));
  ::shutdown(client.fd(), SHUT_WR);
  auto first = client.read_reply();
  auto second = client.read_reply();
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->body, "OK");
  EXPECT_EQ(second->body, "xxxx");
  EXPECT_TRUE(client.closed_by_peer());
}

TEST(ServerLimits, AbruptResetsDoNotDisturbOthers) {
  auto server =
      start_server_with([](server::ServerOptions& o) { o.delay = std::chrono::milliseconds(20); });
  ASSERT_TRUE(server);
  for (int i = 0; i < 20; ++i) {
    RawClient client(server->port());
    ASSERT_TRUE(client.send(get("/") + get("/")));
    linger lg{1, 0};  // close with RST while the answers are pending
    setsockopt(client.fd(), SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
  }
  expect_still_serving(*server);
}

}  // namespace
}  // namespace stampede::server::testing
