// Every phase of an https request measured: a request that opened its connection counts its TCP
// connect and its TLS handshake in its latency (ab's Total); connect and handshake are counted
// per connection, the time to first byte per response.
#include <gtest/gtest.h>

#include <memory>

#include "loadgen/runner.h"
#include "server/server.h"
#include "tls_support.h"

namespace stampede::loadgen {
namespace {

using testing::must_run;

Config https_config(const server::Server& s, bool keep_alive) {
  Config c =
      testing::tls_client_config("https://127.0.0.1:" + std::to_string(s.port()) + "/", 200, 2);
  c.keep_alive = keep_alive;
  return c;
}

// Sum of the values a histogram holds (its mean is exact over them).
double total_ns(const stats::Histogram& h) {
  return h.mean() * static_cast<double>(h.count());
}

TEST(Phases, LatencyOfANewConnectionHoldsItsConnectAndHandshake) {
  auto s = testing::start_tls_server(true);
  ASSERT_TRUE(s);

  // Without keep-alive every request opens its connection: one connect, one handshake and one
  // first byte per request, and each request's latency holds all three (they follow each other).
  const RunResult r = must_run(https_config(*s, false));
  EXPECT_EQ(r.total_requests, 200u);
  EXPECT_EQ(r.total_errors, 0u) << testing::first_error(r);
  EXPECT_EQ(r.connections_opened, 200u);
  EXPECT_EQ(r.connect.count(), 200u);
  EXPECT_EQ(r.tls_handshake.count(), 200u);
  EXPECT_EQ(r.first_byte.count(), 200u);
  EXPECT_GT(r.tls_handshake.min(), 0);
  EXPECT_GE(total_ns(r.latency),
            total_ns(r.connect) + total_ns(r.tls_handshake) + total_ns(r.first_byte))
      << "mean latency " << r.latency.mean() << " ns, connect " << r.connect.mean()
      << " ns, handshake " << r.tls_handshake.mean() << " ns, first byte " << r.first_byte.mean()
      << " ns";

  // With keep-alive: one connect and one handshake per connection, a first byte per request.
  const RunResult k = must_run(https_config(*s, true));
  EXPECT_EQ(k.total_requests, 200u);
  EXPECT_EQ(k.total_errors, 0u) << testing::first_error(k);
  EXPECT_EQ(k.connect.count(), k.connections_opened);
  EXPECT_EQ(k.connect.count(), 2u);
  EXPECT_EQ(k.tls_handshake.count(), 2u);
  EXPECT_EQ(k.first_byte.count(), 200u);
  EXPECT_LE(k.first_byte.max(), k.latency.max());
}

TEST(Phases, PlainHttpHasNoHandshake) {
  auto s = testing::start_tls_server(false);
  ASSERT_TRUE(s);
  Config c =
      testing::tls_client_config("http://127.0.0.1:" + std::to_string(s->port()) + "/", 50, 1);
  const RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, 50u);
  EXPECT_EQ(r.connect.count(), 50u);
  EXPECT_EQ(r.tls_handshake.count(), 0u);
  EXPECT_EQ(r.first_byte.count(), 50u);
  EXPECT_GE(total_ns(r.latency), total_ns(r.connect) + total_ns(r.first_byte));
}

}  // namespace
}  // namespace stampede::loadgen
