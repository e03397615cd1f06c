// Raw bytes the balancer must refuse without forwarding anything: request smuggling shapes,
// bad chunk sizes or chunk data without its CRLF, bare LF line ends, a bare CR, no Host or two,
// HTTP/1.2, oversized heads. Each gets its status and a closed
// connection, and the backend sees no request at all.
#include <gtest/gtest.h>

#include "lb_support.h"

namespace stampede::balancer::testing {
namespace {

struct Case {
  const char* name;
  std::string bytes;
  int status;
};

class Malformed : public ::testing::TestWithParam<Case> {};

TEST_P(Malformed, RefusedClosedAndNeverForwarded) {
  const EchoBehindBalancer setup;
  ASSERT_TRUE(setup.ok());
  Client client(setup.port());
  auto r = client.exchange(GetParam().bytes);
  ASSERT_TRUE(r) << GetParam().name;
  EXPECT_EQ(r->status, GetParam().status) << GetParam().name;
  EXPECT_EQ(r->header("connection"), "close");
  EXPECT_TRUE(client.closed_by_peer());
  // A well-formed request afterwards is forwarded: the backend was reachable all along.
  auto ok = http_get(setup.port(), "/ok");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  auto seen = setup.echo.requests();
  ASSERT_EQ(seen.size(), 1u) << GetParam().name << " reached the backend";
  EXPECT_EQ(seen[0].rfind("GET /ok ", 0), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Balancer, Malformed,
    ::testing::Values(
        Case{"ContentLengthAndTransferEncoding",
             "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
             "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
             400},
        Case{"DuplicateDifferingContentLength",
             "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n"
             "hello!",
             400},
        Case{"InvalidChunkSize",
             "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhi\r\n"
             "0\r\n\r\n",
             400},
        Case{"BareLfLineEnds", "GET / HTTP/1.1\nHost: x\n\n", 400},
        Case{"BareLfInHeaders", "GET / HTTP/1.1\r\nHost: x\nX-A: 1\r\n\r\n", 400},
        Case{"HeadOver16KiB",
             "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(17 * 1024, 'a') + "\r\n\r\n",
             431},
        Case{"ChunkDataWithoutCrlf",
             "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
             "5\r\nhelloXX0\r\n\r\n",
             400},
        Case{"NoHost", "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", 400},
        Case{"TwoHosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400},
        Case{"Http12", "GET / HTTP/1.2\r\nHost: x\r\n\r\n", 505},
        Case{"BareCrInHead", "GET / HTTP/1.1\r\nHost: x\rX-A: 1\r\n\r\n", 400}),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

TEST(MalformedBody, BadChunkAfterTheHeadWasForwardedCutsTheRequest) {
  const EchoBehindBalancer setup;
  ASSERT_TRUE(setup.ok());
  Client client(setup.port());
  ASSERT_TRUE(
      client.send("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                  "5\r\nhello\r\n"));
  // The valid part may be on its way; the bad chunk size must not follow it.
  ASSERT_TRUE(client.send("zz\r\nbad\r\n0\r\n\r\n"));
  auto r = client.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_TRUE(client.closed_by_peer());
  EXPECT_EQ(setup.echo.request_count(), 0u);  // no complete request reached the backend
}

TEST(IdleTimeouts, SlowHeaderGets408) {
  const EchoBehindBalancer setup({.name = "e"},
                                 [](BalancerConfig& c) { c.header_timeout = Millis(200); });
  ASSERT_TRUE(setup.ok());
  Client client(setup.port());
  ASSERT_TRUE(client.send("GET / HTTP/1.1\r\nHost: x\r\n"));  // and nothing more
  auto t0 = std::chrono::steady_clock::now();
  auto r = client.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 408);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
  EXPECT_TRUE(client.closed_by_peer());
}

TEST(IdleTimeouts, IdleClientIsClosed) {
  const EchoBehindBalancer setup({.name = "e"},
                                 [](BalancerConfig& c) { c.client_timeout = Millis(200); });
  ASSERT_TRUE(setup.ok());
  Client client(setup.port());
  auto r = client.get("/");
  ASSERT_TRUE(r);
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(client.closed_by_peer());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
}

}  // namespace
}  // namespace stampede::balancer::testing
