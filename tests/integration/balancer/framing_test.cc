// Strict framing through the balancer, in both directions: what the shared parsers in src/http
// refuse never reaches the other side. Requests the backend must not see (chunk data without
// its CRLF, no Host or two, HTTP/1.2, a bare CR) get their status and a closed connection (their
// cases are in malformed_test.cc's table; here, the chunk bytes never reach a backend that would
// take them for a request of their own); responses with a bare CR in the head get a 502; a
// response body whose chunk framing breaks after the head was relayed is cut, its bad bytes not
// passed on.
#include <gtest/gtest.h>

#include "lb_support.h"
#include "support/scripted_server.h"

namespace stampede::balancer::testing {
namespace {

using stampede::testing::ScriptedReply;
using stampede::testing::ScriptedServer;

// The backend frames requests by their blank line only, so chunk bytes that reached it would
// show up as a request of their own.
TEST(BalancerFraming, BadChunkCrlfIsNeverForwarded) {
  // No answer: the client's status can only come from the balancer.
  ScriptedServer backend(stampede::testing::answer_always({.silent = true}));
  auto lb = start_balancer(base_config({spec("b", backend.port())}));
  ASSERT_TRUE(lb);
  Client client(lb->port());
  auto r = client.exchange(
      "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5\r\nhelloXX0\r\n\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_TRUE(client.closed_by_peer());
  EXPECT_EQ(backend.last_request().find("XX"), std::string::npos) << backend.last_request();
  EXPECT_LE(backend.requests(), 1u);
}

TEST(BalancerFraming, BareCrInTheBackendsStatusLineIs502) {
  ScriptedServer backend([](std::uint64_t, const std::string&) {
    return ScriptedReply{"HTTP/1.1 200 OK\rX-Leak: 1\r\nContent-Length: 2\r\n\r\nhi"};
  });
  auto lb = start_balancer(base_config({spec("b", backend.port())}));
  ASSERT_TRUE(lb);
  auto r = http_get(lb->port(), "/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 502);
  EXPECT_EQ(r->raw.find("X-Leak"), std::string::npos) << r->raw;
}

TEST(BalancerFraming, BadChunkCrlfInAResponseIsCutNotRelayed) {
  ScriptedServer backend([](std::uint64_t, const std::string&) {
    return ScriptedReply{
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n"};
  });
  auto lb = start_balancer(base_config({spec("b", backend.port())}));
  ASSERT_TRUE(lb);
  Client client(lb->port());
  ASSERT_TRUE(client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
  // Whatever part of the response was relayed, the bytes after the broken framing are not; the
  // connection ends (EOF) instead.
  EXPECT_FALSE(client.read_until("XX"));
}

}  // namespace
}  // namespace stampede::balancer::testing
