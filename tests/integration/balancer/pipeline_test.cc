// balance answers pipelined requests in order: 100 in one write with a malformed one in the
// middle. Those before it are forwarded and answered, in order (each echo body is its own
// request's), then the malformed one's 400, then the connection closes; nothing after it
// reaches the backend.
#include <gtest/gtest.h>

#include <string>

#include "lb_support.h"
#include "support/pipelined_burst.h"

namespace stampede::balancer::testing {
namespace {

using stampede::testing::send_burst;

constexpr int kRequests = 100;
constexpr int kMalformed = 50;  // a header line without a colon

std::string post(int i) {
  const std::string body = "body-" + std::to_string(i);
  return "POST /" + std::to_string(i) +
         " HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
         body;
}

TEST(BalancerPipelining, HundredInOneWriteStopAtTheMalformedOne) {
  EchoBackend echo("e");
  ASSERT_TRUE(echo.start());
  auto lb = start_balancer(base_config({spec("e", echo.port())}));
  ASSERT_TRUE(lb);
  std::string burst;
  for (int i = 0; i < kRequests; ++i) {
    burst += i == kMalformed ? "GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n" : post(i);
  }
  const auto result = send_burst(lb->port(), burst);
  ASSERT_TRUE(result.connected);
  EXPECT_FALSE(result.garbled);
  EXPECT_TRUE(result.closed);
  ASSERT_EQ(result.replies.size(), static_cast<std::size_t>(kMalformed + 1));
  for (int i = 0; i < kMalformed; ++i) {
    EXPECT_EQ(result.replies[i].status, 200) << i;
    EXPECT_EQ(result.replies[i].body, "body-" + std::to_string(i)) << i;
  }
  EXPECT_EQ(result.replies.back().status, 400);
  EXPECT_EQ(echo.request_count(), static_cast<std::size_t>(kMalformed));
}

}  // namespace
}  // namespace stampede::balancer::testing
