// Evil backends behind `stampede balance` (a child process; a second backend is a `serve`
// instance named b): a blackhole that accepts and never answers, one that never accepts, one
// that resets the connection after reading the request (GET retried elsewhere, POST never:
// RFC 9110 9.2.2), garbage in both directions, and a backend that trickles its response.
// Each test prints its figure (time to the verdict) for docs/robustness.md.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <functional>
#include <iostream>
#include <mutex>
#include <random>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "faults_support.h"
#include "support/accept_loop.h"
#include "support/loopback.h"
#include "support/scripted_server.h"

namespace stampede::faults {
namespace {

using testing::ScriptedReply;
using testing::ScriptedServer;

// exchange(), timed: the reply, and the milliseconds from the connect to its end.
struct TimedReply {
  std::optional<Reply> reply;
  long ms = 0;
};
TimedReply timed_exchange(std::uint16_t port, const std::string& request,
                          std::chrono::milliseconds timeout = 5000ms) {
  const auto t0 = Clock::now();
  std::optional<Reply> reply = exchange(port, request, timeout);
  return {std::move(reply),
          static_cast<long>(
              std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count())};
}

void figure(const std::string& text) {
  std::cout << text << "\n";
  ::testing::Test::RecordProperty("figure", text);
}

// A backend that takes one connection at a time (AcceptLoop) and hands it, with the request
// head it read, to `handle` (which owns what is written; the loop closes the connection when
// it returns). Health checks are off in these tests, so only proxied requests arrive.
class EvilBackend {
 public:
  using Handle = std::function<void(int fd, const std::string& request)>;
  explicit EvilBackend(Handle handle) : handle_(std::move(handle)) {}
  std::uint16_t port() const { return loop_.port(); }
  std::vector<std::string> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  void serve(int fd) {
    std::string request;
    const auto until = Clock::now() + 3s;
    while (request.find("\r\n\r\n") == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
      if (left <= 0ms || !testing::wait_readable(fd, left)) break;
      char buf[4096];
      const ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      request.append(buf, static_cast<std::size_t>(n));
    }
    {
      std::lock_guard lock(mutex_);
      requests_.push_back(request);
    }
    handle_(fd, request);
  }

  Handle handle_;
  mutable std::mutex mutex_;
  std::vector<std::string> requests_;
  testing::AcceptLoop loop_{[this](int fd) { serve(fd); }};  // last: stops first
};

// The close that follows (the loop's, when the handler returns) resets the connection.
void reset_on_close(int fd) {
  linger hard{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
}

std::string backend_arg(const char* name, std::uint16_t port) {
  return std::string(name) + "=127.0.0.1:" + std::to_string(port);
}

// `stampede balance` over backends a (evil) and b, health checks off, rr (a is picked first).
std::unique_ptr<Stampede> balance(std::uint16_t a, std::uint16_t b,
                                  std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"balance", "--listen", "127.0.0.1:0", "--backend",
                                backend_arg("a", a)};
  if (b != 0) args.insert(args.end(), {"--backend", backend_arg("b", b)});
  args.insert(args.end(), extra.begin(), extra.end());
  return std::make_unique<Stampede>(args);
}

// One backend's entry of /lb-stats (null when absent).
nlohmann::json stats_of(Stampede& lb, const char* name) {
  auto r = exchange(lb.port(), get_request("/lb-stats"));
  if (!r) return nullptr;
  const auto json = nlohmann::json::parse(r->body, nullptr, false);
  if (json.is_discarded()) return nullptr;
  for (const auto& b : json["backends"])
    if (b["name"] == name) return b;
  return nullptr;
}

std::string post_request(const std::string& body) {
  return "POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n\r\n" + body;
}

TEST(Blackhole, SilentBackendIs504AfterTheBackendTimeoutAndStaysUp) {
  ScriptedServer hole([](std::uint64_t, const std::string&) {
    ScriptedReply r;
    r.silent = true;
    return r;
  });
  auto lb = balance(hole.port(), 0, {"--backend-timeout", "400"});
  ASSERT_NE(lb->port(), 0);
  for (const std::string& request : {get_request("/"), post_request("abc")}) {
    const auto [r, ms] = timed_exchange(lb->port(), request);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 504);
    EXPECT_EQ(r->body, R"({"error":"backend timeout"})");
    EXPECT_GE(ms, 400);
    EXPECT_LT(ms, 2000);
    figure(fmt::format("blackhole (accepts, never answers), --backend-timeout 400: {} in {} ms",
                       r->status, ms));
  }
  EXPECT_EQ(hole.requests(), 2u);  // neither was re-sent
  const auto a = stats_of(*lb, "a");
  EXPECT_EQ(a["up"], true) << a;  // slow is not dead
  EXPECT_EQ(a["sent"], 2) << a;
  EXPECT_EQ(a["in_flight"], 0) << a;
}

TEST(Blackhole, NeverAcceptingBackendIsARefusalAfterTheConnectTimeout) {
  const testing::LoopbackListener listener = testing::listen_loopback(0);
  const std::uint16_t port = listener.port;
  // Backlog 0 queues one connection: this one; the kernel then drops further SYNs.
  const int filler = connect_loopback(port, true);
  ASSERT_GE(filler, 0);
  Stampede b({"serve", "--port", "0", "-q", "--cores", "1", "--id", "b"});
  auto lb = balance(port, b.port(), {"--connect-timeout", "300"});
  ASSERT_NE(lb->port(), 0);
  std::vector<long> ms;
  for (int i = 0; i < 5; ++i) {
    const auto [r, took] = timed_exchange(lb->port(), get_request("/" + std::to_string(i)));
    ms.push_back(took);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->header("x-backend"), "b");
  }
  close(filler);
  figure(
      fmt::format("never-accepting backend, --connect-timeout 300: first request 200 from "
                  "b in {} ms, the next four in {} {} {} {} ms",
                  ms[0], ms[1], ms[2], ms[3], ms[4]));
  EXPECT_GE(ms[0], 300);  // it waited for the connect timeout, then went to b
  EXPECT_LT(ms[0], 2000);
  for (int i = 1; i < 5; ++i)
    EXPECT_LT(ms[i], 250) << "a was tried again: " << i;
  const auto a = stats_of(*lb, "a");
  EXPECT_EQ(a["up"], false) << a;
  EXPECT_EQ(a["retries"], 1) << a;
}

// Reads the request, then resets the connection before any response byte.
EvilBackend::Handle reset_after_request() {
  return [](int fd, const std::string&) { reset_on_close(fd); };
}

TEST(ResetAfterRequest, GetIsRetriedOnAnotherBackend) {
  EvilBackend a(reset_after_request());
  Stampede b({"serve", "--port", "0", "-q", "--cores", "1", "--id", "b"});
  auto lb = balance(a.port(), b.port());
  ASSERT_NE(lb->port(), 0);
  const auto [r, ms] = timed_exchange(lb->port(), get_request("/g"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("x-backend"), "b");
  ASSERT_EQ(a.requests().size(), 1u);
  EXPECT_EQ(a.requests()[0].rfind("GET /g ", 0), 0u);
  figure(fmt::format("reset after the request: GET answered 200 by b in {} ms", ms));
  const auto stats = stats_of(*lb, "a");
  EXPECT_EQ(stats["retries"], 1) << stats;
  EXPECT_EQ(stats["up"], false) << stats;  // a reset on a fresh connection ejects
}

TEST(ResetAfterRequest, PostIsNeverSentTwice) {
  EvilBackend a(reset_after_request());
  Stampede b({"serve", "--port", "0", "-q", "--cores", "1", "--id", "b"});
  auto lb = balance(a.port(), b.port());
  ASSERT_NE(lb->port(), 0);
  auto r = exchange(lb->port(), post_request("once"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 502);
  EXPECT_EQ(r->header("x-backend"), "a");
  EXPECT_EQ(r->body, R"({"error":"backend unreachable"})");
  ASSERT_EQ(a.requests().size(), 1u);
  EXPECT_EQ(a.requests()[0].rfind("POST /p ", 0), 0u);
  auto count = exchange(b.port(), get_request("/count"));
  ASSERT_TRUE(count);
  EXPECT_NE(count->body.find("\"served\":0"), std::string::npos) << "the POST reached b";
  const auto stats = stats_of(*lb, "a");
  EXPECT_EQ(stats["retries"], 0) << stats;
}

std::string random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s)
    c = static_cast<char>(rng());
  return s;
}

TEST(Garbage, RandomBytesEitherWayAreA400OrA502AndNothingLeaks) {
  const std::string junk = random_bytes(4096, 15);
  ScriptedServer a([&](std::uint64_t, const std::string&) { return ScriptedReply{junk, true}; });
  auto lb = balance(a.port(), 0);
  ASSERT_NE(lb->port(), 0);
  // From a backend: a 502 of the balancer's own, none of the junk relayed.
  auto r = exchange(lb->port(), get_request("/"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 502);
  EXPECT_EQ(r->body, R"({"error":"bad backend response"})");
  EXPECT_EQ(r->raw.find(junk.substr(0, 16)), std::string::npos);
  // From a client: 400, and the backend sees nothing of it.
  for (unsigned seed = 1; seed <= 8; ++seed) {
    auto bad = exchange(lb->port(), random_bytes(2048, seed) + "\r\n\r\n");
    ASSERT_TRUE(bad) << seed;
    EXPECT_EQ(bad->status, 400) << seed;
  }
  EXPECT_EQ(a.requests(), 1u);
  const auto stats = stats_of(*lb, "a");
  EXPECT_EQ(stats["bad_responses"], 1) << stats;
  EXPECT_EQ(stats["up"], true) << stats;
}

// Sends `response` one byte every `gap`, the first one after `gap` too (the loop then closes).
EvilBackend::Handle trickle(std::string response, std::chrono::milliseconds gap) {
  return [response, gap](int fd, const std::string&) {
    for (char c : response) {
      std::this_thread::sleep_for(gap);  // the fault under test: a backend this slow
      if (send(fd, &c, 1, MSG_NOSIGNAL) != 1) break;
    }
  };
}

TEST(Trickle, EachByteWithinTheBackendTimeoutIsRelayedToTheEnd) {
  const std::string response = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789";
  EvilBackend a(trickle(response, 20ms));
  auto lb = balance(a.port(), 0, {"--backend-timeout", "400"});
  ASSERT_NE(lb->port(), 0);
  const auto [r, ms] = timed_exchange(lb->port(), get_request("/"), 10000ms);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "0123456789");
  EXPECT_GE(ms, static_cast<long>(response.size()) * 20);
  figure(
      fmt::format("trickling backend, one byte every 20 ms ({} bytes), --backend-timeout "
                  "400: 200 complete after {} ms",
                  response.size(), ms));
}

TEST(Trickle, GapsLongerThanTheBackendTimeoutAre504) {
  EvilBackend a(trickle("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK", 800ms));
  auto lb = balance(a.port(), 0, {"--backend-timeout", "300"});
  ASSERT_NE(lb->port(), 0);
  const auto [r, ms] = timed_exchange(lb->port(), get_request("/"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 504);
  EXPECT_GE(ms, 300);
  EXPECT_LT(ms, 790) << "the 504 came after the first byte, not after the timeout";
  figure(
      fmt::format("trickling backend, one byte every 800 ms, --backend-timeout 300: 504 "
                  "after {} ms",
                  ms));
}

}  // namespace
}  // namespace stampede::faults
