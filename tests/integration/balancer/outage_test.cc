// Outages: an instance killed mid-run (health checks off and on), no live backend, every
// backend refusing, a backend too slow, and recovery.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "lb_support.h"

namespace stampede::balancer::testing {
namespace {

// The guide's outage case, shortened: 3 instances, 12 connections, c killed mid-run. The
// guide's Node balancer lost 29.7% (checks off), 2.5% (1 s) and 0.05% (200 ms). Here GETs in
// flight on c are retried elsewhere and new connections to it are refused and re-sent, so
// nothing may fail.
void kill_mid_run(Millis health_interval) {
  ServeProcess a("a"), b("b"), c("c");
  ASSERT_TRUE(a.port() && b.port() && c.port());
  BalancerConfig config =
      base_config({spec("a", a.port()), spec("b", b.port()), spec("c", c.port())});
  config.health_interval = health_interval;
  auto lb = start_balancer(config);
  ASSERT_TRUE(lb);
  LoadOptions options = load(12, 3000ms);
  options.event_at = 1000ms;
  options.event = [&c] { c.process().signal(SIGKILL); };
  LoadResult r = run_load(lb->port(), options);
  std::cout << "killed mid-run (health checks " << health_interval.count() << " ms): " << r.requests
            << " requests over 3 s, " << r.failed << " failed, " << r.by_backend["c"]
            << " answered by c before the kill\n";
  EXPECT_GT(r.ok, 1000u);
  EXPECT_EQ(r.failed, 0u) << "health " << health_interval.count() << " ms: " << r.failed << " of "
                          << r.requests;
  EXPECT_EQ(r.mismatched, 0u);
  EXPECT_GT(r.by_backend["c"], 0u);
  EXPECT_FALSE(lb->backend_live("c"));
  auto stats = backend_stats(*lb, "c");
  EXPECT_FALSE(stats["up"].get<bool>());
  EXPECT_GE(stats["down_transitions"].get<std::uint64_t>(), 1u);
  EXPECT_EQ(stats["in_flight"].get<std::int64_t>(), 0);
}

TEST(Outage, KilledInstanceWithHealthChecksOff) {
  kill_mid_run(Millis(0));
}

TEST(Outage, KilledInstanceWithHealthChecksEvery200ms) {
  kill_mid_run(Millis(200));
}

TEST(Outage, NoLiveBackendIs503AtOnce) {
  EchoBackend echo("a");
  ASSERT_TRUE(echo.start());
  BalancerConfig config = base_config({spec("a", echo.port())});
  auto lb = start_balancer(config);
  ASSERT_TRUE(lb);
  echo.stop();
  // The first request finds a refusing: 502 after trying it; a is then ejected: 503.
  auto first = http_get(lb->port(), "/");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 502);
  EXPECT_EQ(first->body, R"({"error":"backend unreachable"})");
  EXPECT_EQ(first->header("x-backend"), "a");
  auto t0 = std::chrono::steady_clock::now();
  auto second = http_get(lb->port(), "/");
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 503);
  EXPECT_EQ(second->body, R"({"error":"no backend"})");
  EXPECT_EQ(second->header("content-type"), "application/json");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 500ms);
  // The figure for docs/robustness.md: the median over 50 requests on one keep-alive
  // connection (a median, so that a stall of the host does not decide it).
  Client client(lb->port());
  std::vector<double> ms;
  for (int i = 0; i < 50; ++i) {
    const auto start = std::chrono::steady_clock::now();
    auto r = client.get("/");
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 503);
  }
  std::sort(ms.begin(), ms.end());
  std::cout << "all backends down: 503 in " << ms[25] << " ms median, " << ms[49]
            << " ms max over 50 requests\n";
  EXPECT_LT(ms[25], 10.0);
}

TEST(Outage, RefusedConnectionIsRetriedOnAnotherBackendEvenForPost) {
  EchoBackend live("b");
  ASSERT_TRUE(live.start());
  EchoBackend dead("a");
  ASSERT_TRUE(dead.start());
  std::uint16_t dead_port = dead.port();
  dead.stop();
  auto lb = start_balancer(base_config({spec("a", dead_port), spec("b", live.port())}));
  ASSERT_TRUE(lb);
  for (int i = 0; i < 4; ++i) {
    Client client(lb->port());
    ASSERT_TRUE(client.send("POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"));
    auto r = client.read_response();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->header("x-backend"), "b");
    EXPECT_EQ(r->body, "hello");
  }
  EXPECT_EQ(live.request_count(), 4u);
  auto stats = backend_stats(*lb, "a");
  EXPECT_EQ(stats["failures"].get<std::uint64_t>(), 1u);  // then ejected: not tried again
  EXPECT_EQ(stats["retries"].get<std::uint64_t>(), 1u);
}

TEST(Outage, SlowBackendIs504AfterTheBackendTimeout) {
  ServeProcess a("a");
  ASSERT_NE(a.port(), 0);
  BalancerConfig config = base_config({spec("a", a.port())});
  config.backend_timeout = Millis(300);
  auto lb = start_balancer(config);
  ASSERT_TRUE(lb);
  auto t0 = std::chrono::steady_clock::now();
  auto r = http_get(lb->port(), "/?delay=3000");
  auto elapsed = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 504);
  EXPECT_EQ(r->header("x-backend"), "a");
  EXPECT_GE(elapsed, 300ms);
  EXPECT_LT(elapsed, 1500ms);
  EXPECT_TRUE(lb->backend_live("a"));  // slow is not dead
  auto ok = http_get(lb->port(), "/");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
}

// Recovery, with the issue's bound: a backend back from an outage gets its share (1/N of a
// round-robin) within rise x interval + 1 s of starting again. The figure is printed.
TEST(Outage, ARecoveredBackendHasItsShareBackWithinRiseTimesIntervalPlusOneSecond) {
  EchoBackend a("a"), b("b"), c("c");
  ASSERT_TRUE(a.start() && b.start() && c.start());
  BalancerConfig config =
      base_config({spec("a", a.port()), spec("b", b.port()), spec("c", c.port())});
  config.health_interval = Millis(200);
  config.health_path = "/health";
  config.rise = 2;
  auto lb = start_balancer(config);
  ASSERT_TRUE(lb);
  c.stop();
  auto deadline = std::chrono::steady_clock::now() + 5s;
  while (lb->backend_live("c") && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);  // polling a state with a bound, not synchronising
  }
  ASSERT_FALSE(lb->backend_live("c"));
  ASSERT_TRUE(c.start());  // same port
  const auto t0 = std::chrono::steady_clock::now();
  std::optional<Millis> live_after, share_after;
  Client client(lb->port());
  std::vector<std::string> window;  // the last 30 responses' backends
  deadline = t0 + 5s;
  while (!share_after && std::chrono::steady_clock::now() < deadline) {
    auto r = client.get("/");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200);
    const auto now = std::chrono::duration_cast<Millis>(std::chrono::steady_clock::now() - t0);
    if (!live_after && lb->backend_live("c")) live_after = now;
    window.push_back(r->header("x-backend"));
    if (window.size() > 30) window.erase(window.begin());
    if (window.size() == 30 && std::count(window.begin(), window.end(), "c") == 10) {
      share_after = now;
    }
  }
  ASSERT_TRUE(live_after && share_after);
  std::cout << "recovery (rise 2, interval 200 ms): up after " << live_after->count()
            << " ms, share 1/3 over the last 30 requests after " << share_after->count() << " ms\n";
  EXPECT_LE(*share_after, Millis(2 * 200 + 1000));
}

TEST(Outage, HealthChecksBringABackendBack) {
  EchoBackend a("a"), b("b"), c("c");
  ASSERT_TRUE(a.start() && b.start() && c.start());
  BalancerConfig config = base_config(
      {spec("a", a.port()), spec("b", b.port()), spec("c", c.port())}, Strategy::Sticky);
  config.health_interval = Millis(50);
  config.health_path = "/health";
  auto lb = start_balancer(config);
  ASSERT_TRUE(lb);
  auto route = [&](int key) {
    auto r = http_get(lb->port(), "/", "x-session: k" + std::to_string(key) + "\r\n");
    return r ? r->header("x-backend") : std::string("error");
  };
  std::vector<std::string> before;
  for (int k = 0; k < 60; ++k)
    before.push_back(route(k));
  c.stop();
  // Polling a state with a bound, not synchronising.
  eventually([&] { return !lb->backend_live("c"); }, 5s, 10ms);
  ASSERT_FALSE(lb->backend_live("c"));
  int moved = 0;
  for (int k = 0; k < 60; ++k) {
    std::string now = route(k);
    EXPECT_NE(now, "c");
    if (now != before[k]) {
      ++moved;
      EXPECT_EQ(before[k], "c") << "a session on a live backend moved";
    }
  }
  EXPECT_GT(moved, 0);
  ASSERT_TRUE(c.start());  // same port
  eventually([&] { return lb->backend_live("c"); }, 5s, 10ms);
  ASSERT_TRUE(lb->backend_live("c"));
  for (int k = 0; k < 60; ++k)
    EXPECT_EQ(route(k), before[k]) << "session k" << k;
}

}  // namespace
}  // namespace stampede::balancer::testing
