// What the balancer does when a backend answers badly or a client goes away: malformed
// responses are 502s counted against the backend, a head cut short is a 502 at once every
// time, a client abort costs the backend nothing and frees both connections at once, a stale
// pooled connection is retried on a fresh one, and HTTP/1.0 clients share pooled HTTP/1.1
// backend connections. Every count is checked against the backend's own view and /lb-stats.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>

#include "lb_support.h"
#include "support/accept_loop.h"
#include "support/loopback.h"
#include "support/scripted_server.h"

namespace stampede::balancer::testing {
namespace {

using stampede::testing::ok_reply;
using stampede::testing::ScriptedReply;
using stampede::testing::ScriptedServer;
using Clock = std::chrono::steady_clock;

std::uint64_t stat(Balancer& lb, const std::string& field) {
  return backend_stats(lb, "a")[field].get<std::uint64_t>();
}

// A raw client socket: sends bytes, then half-closes (shutdown) or closes.
class RawClient {
 public:
  explicit RawClient(std::uint16_t port) {
    fd_.reset(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(port);
    connect(fd_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  }
  void send_all(const std::string& bytes) {
    ::send(fd_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
  }
  // Held back (MSG_MORE) until the next half_close() or close(): the bytes and the FIN then
  // leave in one segment, so the peer sees them in one readiness event.
  void send_with_fin(const std::string& bytes) {
    ::send(fd_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_MORE);
  }
  void half_close() { shutdown(fd_.get(), SHUT_WR); }
  // Closes with a reset (SO_LINGER 0) instead of a FIN.
  void reset() {
    linger hard{1, 0};
    setsockopt(fd_.get(), SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
    fd_.reset();
  }
  void close() { fd_.reset(); }
  // Every byte until the peer closes; nullopt when it did not close within `timeout`.
  std::optional<std::string> read_to_eof(std::chrono::milliseconds timeout) {
    std::string out;
    const auto until = Clock::now() + timeout;
    while (Clock::now() < until) {
      pollfd p{fd_.get(), POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      char chunk[65536];
      ssize_t n = stampede::testing::recv_some(fd_.get(), chunk, sizeof chunk);
      if (n <= 0) return out;
      out.append(chunk, static_cast<std::size_t>(n));
    }
    return std::nullopt;
  }

 private:
  net::Fd fd_;
};

// A backend that reads each connection until the balancer closes it, never answering: it tells
// whether and when the balancer let go of the connection.
class SinkBackend {
 public:
  std::uint16_t port() const { return loop_.port(); }
  // Waits (at most 5 s) until the bytes received so far contain `marker`.
  bool wait_received(const std::string& marker) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, 5s, [&] { return received_.find(marker) != std::string::npos; });
  }
  // Waits (at most 5 s) for the connection to end: true when the balancer closed it.
  bool closed_by_balancer() {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, 5s, [&] { return closed_; });
  }

 private:
  void serve(int fd) {
    char chunk[65536];
    for (;;) {
      const ssize_t n = stampede::testing::recv_some(fd, chunk, sizeof chunk);
      std::lock_guard lock(mutex_);
      if (n <= 0)
        closed_ = true;
      else
        received_.append(chunk, static_cast<std::size_t>(n));
      changed_.notify_all();
      if (n <= 0) return;
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::string received_;
  bool closed_ = false;
  stampede::testing::AcceptLoop loop_{[this](int fd) { serve(fd); }};  // last: stops first
};

// --- Malformed responses (items 5 and 7): 502 before anything was relayed ----------------

struct BadResponse {
  const char* name;
  std::string bytes;
};

// Backend "a", answering every request with the case's bytes and closing, behind a balancer.
class BadBackend : public ::testing::TestWithParam<BadResponse> {
 protected:
  void SetUp() override { ASSERT_TRUE(lb_); }

  ScriptedServer backend_{stampede::testing::answer_always({GetParam().bytes, true})};
  std::unique_ptr<Balancer> lb_ = start_balancer(base_config({spec("a", backend_.port())}));
};

class MalformedResponse : public BadBackend {};

TEST_P(MalformedResponse, Is502CountedAndNothingRelayed) {
  Client client(lb_->port());
  auto r = client.get("/");
  ASSERT_TRUE(r) << GetParam().name << ": no response";
  EXPECT_EQ(r->status, 502) << GetParam().name;
  EXPECT_EQ(r->header("x-backend"), "a");
  EXPECT_EQ(r->header("content-type"), "application/json");
  EXPECT_EQ(r->body, "{\"error\":\"bad backend response\"}");
  EXPECT_EQ(r->raw.find("X-Leak"), std::string::npos) << "backend bytes relayed";
  // The client connection is still in step: the next request gets its own 502.
  auto again = client.get("/");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 502);
  EXPECT_EQ(backend_.requests(), 2u);
  EXPECT_EQ(stat(*lb_, "sent"), 2u);
  EXPECT_EQ(stat(*lb_, "failures"), 2u);
  EXPECT_EQ(stat(*lb_, "bad_responses"), 2u);
  EXPECT_EQ(stat(*lb_, "responses"), 0u);
  EXPECT_EQ(stat(*lb_, "in_flight"), 0u);
  auto metrics = http_get(lb_->port(), "/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(
      metrics->body.find("stampede_lb_bad_responses_total{backend=\"a\",address=\"127.0.0.1:" +
                         std::to_string(backend_.port()) + "\"} 2\n"),
      std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Balancer, MalformedResponse,
    ::testing::Values(
        BadResponse{"InvalidChunkSize",
                    "HTTP/1.1 200 OK\r\nX-Leak: 1\r\nTransfer-Encoding: chunked\r\n\r\n"
                    "zz\r\nhello\r\n0\r\n\r\n"},
        BadResponse{"OverflowingChunkSize",
                    "HTTP/1.1 200 OK\r\nX-Leak: 1\r\nTransfer-Encoding: chunked\r\n\r\n"
                    "FFFFFFFFFFFFFFFFFF\r\nhello\r\n0\r\n\r\n"},
        BadResponse{"BadChunkAfterAGoodOne",
                    "HTTP/1.1 200 OK\r\nX-Leak: 1\r\nTransfer-Encoding: chunked\r\n\r\n"
                    "5\r\nhello\r\nzz\r\n0\r\n\r\n"},
        BadResponse{"GarbageStatusLine", "HTTP/1.1 2x0 OK\r\nX-Leak: 1\r\n\r\n"},
        BadResponse{"NotHttp", "SSH-2.0-OpenSSH_9.2\r\nX-Leak: 1\r\n\r\n"},
        BadResponse{"BareLfInHead", "HTTP/1.1 200 OK\r\nX-Leak: 1\nContent-Length: 0\r\n\r\n"},
        BadResponse{"HeadCutShort", "HTTP/1.1 200 OK\r\nX-Leak: 1\r\nContent-Le"}),
    [](const ::testing::TestParamInfo<BadResponse>& info) { return info.param.name; });

// A body cut short by the backend's close: the EOF may arrive with the bytes (then nothing was
// relayed yet and the client gets the 502) or after the head went out (then the client
// connection is closed). Either way the client never sees it as complete, and it is counted.
class CutBody : public BadBackend {};

TEST_P(CutBody, Is502OrAClosedConnectionAndCounted) {
  RawClient client(lb_->port());
  client.send_all("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  auto got = client.read_to_eof(3000ms);
  ASSERT_TRUE(got) << GetParam().name;
  if (got->rfind("HTTP/1.1 502 ", 0) == 0) {
    EXPECT_NE(got->find("\r\n\r\n{\"error\":\"bad backend response\"}"), std::string::npos);
    EXPECT_EQ(got->find("X-Leak"), std::string::npos) << "backend bytes relayed";
  } else {
    EXPECT_EQ(got->rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << *got;
    EXPECT_NE(got->find("\r\nx-backend: a\r\n"), std::string::npos) << *got;
    EXPECT_EQ(got->find("0\r\n\r\n"), std::string::npos) << "the cut body was completed";
  }
  EXPECT_EQ(stat(*lb_, "failures"), 1u);
  EXPECT_EQ(stat(*lb_, "bad_responses"), 1u);
  EXPECT_EQ(stat(*lb_, "responses"), 0u);
  EXPECT_EQ(stat(*lb_, "in_flight"), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Balancer, CutBody,
    ::testing::Values(BadResponse{"TruncatedChunkedBody",
                                  "HTTP/1.1 200 OK\r\nX-Leak: 1\r\nTransfer-Encoding: chunked\r\n"
                                  "\r\n5\r\nhel"},
                      BadResponse{"ShortContentLengthBody",
                                  "HTTP/1.1 200 OK\r\nX-Leak: 1\r\nContent-Length: 10\r\n\r\nhel"}),
    [](const ::testing::TestParamInfo<BadResponse>& info) { return info.param.name; });

TEST(MalformedResponse, BadChunkAfterBytesWereRelayedClosesAndCounts) {
  // More than the balancer queues toward a client (256 KiB) before the bad chunk size: the
  // first bytes are out before the error is seen, so closing is all that is left.
  const std::string good(300 * 1024, 'x');
  char size[32];
  std::snprintf(size, sizeof size, "%zX\r\n", good.size());
  const std::string bytes = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" +
                            std::string(size) + good + "\r\nzz\r\n0\r\n\r\n";
  ScriptedServer backend([&](std::uint64_t, const std::string&) {
    return ScriptedReply{bytes, true};
  });
  auto lb = start_balancer(base_config({spec("a", backend.port())}));
  ASSERT_TRUE(lb);
  RawClient client(lb->port());
  client.send_all("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  auto got = client.read_to_eof(5000ms);
  ASSERT_TRUE(got) << "the balancer did not close the client connection";
  EXPECT_EQ(got->rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
  EXPECT_LT(got->size(), bytes.size());
  EXPECT_EQ(stat(*lb, "failures"), 1u);
  EXPECT_EQ(stat(*lb, "bad_responses"), 1u);
  EXPECT_EQ(stat(*lb, "responses"), 0u);
}

// --- A head cut short, then a close (item 6): an immediate 502 every time ---------------

TEST(CutHead, EveryRequestIsAnImmediate502) {
  ScriptedServer backend([](std::uint64_t, const std::string&) {
    return ScriptedReply{"HTTP/1.1 200 OK\r\nContent-Le", true};
  });
  BalancerConfig config = base_config({spec("a", backend.port())});
  config.backend_timeout = Millis(3000);
  auto lb = start_balancer(config);
  ASSERT_TRUE(lb);
  Client client(lb->port());
  constexpr int kRequests = 8;
  for (int i = 0; i < kRequests; ++i) {
    const auto t0 = Clock::now();
    auto r = client.get("/" + std::to_string(i));
    ASSERT_TRUE(r) << i;
    EXPECT_EQ(r->status, 502) << "request " << i;
    EXPECT_LT(Clock::now() - t0, 1500ms) << "request " << i << " waited for the backend timeout";
  }
  EXPECT_EQ(backend.requests(), std::uint64_t{kRequests});
  EXPECT_EQ(stat(*lb, "failures"), std::uint64_t{kRequests});
  EXPECT_EQ(stat(*lb, "bad_responses"), std::uint64_t{kRequests});
  EXPECT_EQ(stat(*lb, "in_flight"), 0u);
}

// --- Client aborts (item 9) --------------------------------------------------------------

// The balancer over backend "a" counted one client abort and no failure, with nothing in flight.
void expect_one_client_abort(Balancer& lb) {
  EXPECT_EQ(stat(lb, "failures"), 0u);  // the client went away: not the backend's fault
  EXPECT_EQ(stat(lb, "client_aborts"), 1u);
  EXPECT_EQ(stat(lb, "in_flight"), 0u);
}

// A balancer over the one backend "a" at `port`, with base_config changed by `adjust`.
std::unique_ptr<Balancer> start_over_a(std::uint16_t port,
                                       const std::function<void(BalancerConfig&)>& adjust) {
  BalancerConfig config = base_config({spec("a", port)});
  adjust(config);
  return start_balancer(config);
}

void partial_body_then(bool half_close) {
  SinkBackend backend;
  auto lb = start_balancer(base_config({spec("a", backend.port())}));
  ASSERT_TRUE(lb);
  const auto t0 = Clock::now();
  {
    RawClient client(lb->port());
    client.send_all("POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n");
    ASSERT_TRUE(backend.wait_received("\r\n\r\n"));  // the attempt is under way
    client.send_with_fin("abc");
    if (half_close) {
      client.half_close();
      EXPECT_TRUE(client.read_to_eof(3000ms)) << "the balancer kept the client connection";
    } else {
      client.close();
    }
    EXPECT_TRUE(backend.closed_by_balancer()) << "the backend connection was held";
  }
  EXPECT_LT(Clock::now() - t0, 3000ms);
  EXPECT_EQ(stat(*lb, "sent"), 1u);
  expect_one_client_abort(*lb);
  EXPECT_TRUE(lb->backend_live("a"));
}

TEST(ClientAbort, PartialBodyThenCloseFreesBothSidesAtOnce) {
  partial_body_then(false);
}

TEST(ClientAbort, PartialBodyThenHalfCloseFreesBothSidesAtOnce) {
  partial_body_then(true);
}

TEST(ClientAbort, ResetWhileWaitingForTheResponseFreesBothSidesAtOnce) {
  SinkBackend backend;
  auto lb =
      start_over_a(backend.port(), [](BalancerConfig& c) { c.backend_timeout = Millis(20000); });
  ASSERT_TRUE(lb);
  const auto t0 = Clock::now();
  {
    RawClient client(lb->port());
    client.send_all("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(backend.wait_received("\r\n\r\n"));
    client.reset();
  }
  EXPECT_TRUE(backend.closed_by_balancer()) << "the backend connection was held";
  EXPECT_LT(Clock::now() - t0, 3000ms);
  expect_one_client_abort(*lb);
  EXPECT_EQ(lb->stats_json().find("\"504\":1"), std::string::npos);
}

TEST(ClientAbort, ClientStalledMidBodyIsNotTheBackendsFailure) {
  SinkBackend backend;
  auto lb = start_over_a(backend.port(), [](BalancerConfig& c) { c.client_timeout = Millis(300); });
  ASSERT_TRUE(lb);
  RawClient client(lb->port());
  client.send_all("POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc");
  ASSERT_TRUE(backend.wait_received("\r\n\r\nabc"));
  EXPECT_TRUE(client.read_to_eof(3000ms)) << "the stalled client was not closed";
  EXPECT_TRUE(backend.closed_by_balancer());
  expect_one_client_abort(*lb);
}

TEST(ClientAbort, HalfCloseAfterACompleteRequestIsAnsweredThenClosed) {
  EchoBehindBalancer setup({.name = "a"},
                           [](BalancerConfig& c) { c.client_timeout = Millis(30000); });
  ASSERT_TRUE(setup.ok());
  Balancer* lb = setup.lb.get();
  const auto t0 = Clock::now();
  RawClient client(lb->port());
  client.send_with_fin("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");
  client.half_close();
  auto got = client.read_to_eof(3000ms);
  ASSERT_TRUE(got) << "the connection was kept open after the answer";
  EXPECT_LT(Clock::now() - t0, 3000ms);
  EXPECT_EQ(got->rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
  EXPECT_NE(got->find("\r\n\r\nhello"), std::string::npos);
  EXPECT_EQ(setup.echo.request_count(), 1u);
  EXPECT_EQ(stat(*lb, "responses"), 1u);
  EXPECT_EQ(stat(*lb, "failures"), 0u);
  EXPECT_EQ(stat(*lb, "client_aborts"), 0u);
}

// --- Stale pooled connections to the only backend (item 15) -----------------------------

// Answers the first request of each connection and closes the connection, unannounced, when
// the second one arrives: a pooled connection is always stale when it is reused.
ScriptedServer::Script one_answer_per_connection() {
  return [](std::uint64_t index, const std::string& request) {
    if (index % 2 == 1) return ScriptedReply{"", true};
    return ok_reply(request);
  };
}

TEST(StaleConnection, IdempotentRequestIsRetriedOnAFreshConnectionToTheSameBackend) {
  ScriptedServer backend(one_answer_per_connection());
  BalancerConfig config = base_config({spec("a", backend.port())});
  config.retries = 0;  // the stale-connection retry is not one of --retries
  auto lb = start_balancer(config);
  ASSERT_TRUE(lb);
  Client client(lb->port());
  const char* methods[] = {"GET", "PUT", "DELETE", "GET", "OPTIONS", "GET"};
  for (const char* method : methods) {
    ASSERT_TRUE(client.send(std::string(method) + " /r HTTP/1.1\r\nHost: x\r\n\r\n"));
    auto r = client.read_response();
    ASSERT_TRUE(r) << method;
    EXPECT_EQ(r->status, 200) << method;
  }
  // The first request opened a connection; each later one met a stale one and was re-sent.
  const std::uint64_t n = std::size(methods);
  EXPECT_EQ(backend.requests(), 2 * n - 1);
  EXPECT_EQ(backend.connections(), n);
  EXPECT_EQ(stat(*lb, "responses"), n);
  EXPECT_EQ(stat(*lb, "retries"), n - 1);
  EXPECT_TRUE(lb->backend_live("a"));
}

TEST(StaleConnection, PostThatReachedTheBackendIsNeverSentTwice) {
  ScriptedServer backend(one_answer_per_connection());
  auto lb = start_balancer(base_config({spec("a", backend.port())}));
  ASSERT_TRUE(lb);
  Client client(lb->port());
  auto first = client.get("/");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 200);
  ASSERT_TRUE(client.send("POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"));
  auto post = client.read_response();
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 502);
  EXPECT_EQ(backend.requests(), 2u);  // the POST arrived once and was not re-sent
  EXPECT_EQ(backend.last_request().rfind("POST /p ", 0), 0u);
  auto after = client.get("/");  // a fresh connection serves the next request
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);
  EXPECT_EQ(backend.requests(), 3u);
}

// --- HTTP/1.0 keep-alive clients (item 16) -----------------------------------------------

TEST(Http10Client, KeepAliveRequestsShareOnePooledHttp11Connection) {
  EchoBackend echo("a");
  ASSERT_TRUE(echo.start());
  auto lb = start_balancer(base_config({spec("a", echo.port())}));
  ASSERT_TRUE(lb);
  constexpr int kClients = 3, kRequests = 10;
  for (int c = 0; c < kClients; ++c) {
    Client client(lb->port());
    for (int i = 0; i < kRequests; ++i) {
      ASSERT_TRUE(
          client.send("GET /" + std::to_string(i) + " HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"));
      auto r = client.read_response();
      ASSERT_TRUE(r) << c << "/" << i;
      EXPECT_EQ(r->status, 200);
      EXPECT_EQ(r->header("connection"), "keep-alive");
    }
  }
  EXPECT_EQ(echo.request_count(), std::size_t{kClients * kRequests});
  EXPECT_EQ(echo.connection_count(), 1u);
  auto seen = echo.requests();
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen[0].rfind("GET /0 HTTP/1.1\r\n", 0), 0u);
  EXPECT_NE(seen[0].find("\r\nHost: \r\n"), std::string::npos);  // HTTP/1.1 needs one
}

TEST(Http10Client, ChunkedResponseIsDechunkedAndCloseDelimited) {
  EchoBackend echo("a", "", true);
  ASSERT_TRUE(echo.start());
  auto lb = start_balancer(base_config({spec("a", echo.port())}));
  ASSERT_TRUE(lb);
  for (int c = 0; c < 2; ++c) {
    RawClient client(lb->port());
    client.send_all(
        "POST /c HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\nContent-Length: 11\r\n\r\n"
        "hello world");
    auto got = client.read_to_eof(3000ms);
    ASSERT_TRUE(got) << "a de-chunked response must end with the connection";
    EXPECT_EQ(got->rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
    const std::size_t end = got->find("\r\n\r\n");
    ASSERT_NE(end, std::string::npos);
    const std::string head = got->substr(0, end + 2);
    EXPECT_EQ(head.find("Transfer-Encoding"), std::string::npos) << head;
    EXPECT_NE(head.find("Connection: close\r\n"), std::string::npos) << head;
    EXPECT_EQ(got->substr(end + 4), "hello world");
  }
  EXPECT_EQ(echo.request_count(), 2u);
  EXPECT_EQ(echo.connection_count(), 1u);  // the backend connection stayed pooled
  EXPECT_EQ(stat(*lb, "responses"), 2u);
}

}  // namespace
}  // namespace stampede::balancer::testing
