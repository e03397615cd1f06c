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

using stampede::testing::kBurstMalformed;

std::string post(int i) {
  const std::string body = "body-" + std::to_string(i);
  return "POST /" + std::to_string(i) +
         " HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
         body;
}

TEST(BalancerPipelining, HundredInOneWriteStopAtTheMalformedOne) {
  const EchoBehindBalancer setup;
  ASSERT_TRUE(setup.ok());
  const auto result =
      stampede::testing::send_burst(setup.port(), stampede::testing::burst_with_malformed(post));
  stampede::testing::expect_stopped_at_malformed(result,
                                                 [](int i) { return "body-" + std::to_string(i); });
  EXPECT_EQ(setup.echo.request_count(), static_cast<std::size_t>(kBurstMalformed));
}

}  // namespace
}  // namespace stampede::balancer::testing
