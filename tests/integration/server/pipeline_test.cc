// serve answers pipelined requests in order: 100 in one write with a malformed one in the
// middle. Those before it are answered, in order, then its 400, then the connection closes;
// nothing after the malformed one is answered.
#include <gtest/gtest.h>

#include <string>

#include "fixture.h"
#include "support/pipelined_burst.h"

namespace stampede::server::testing {
namespace {

using stampede::testing::send_burst;

constexpr int kRequests = 100;
constexpr int kMalformed = 50;  // a header line without a colon

TEST(ServerPipelining, HundredInOneWriteStopAtTheMalformedOne) {
  auto server = start_server();
  ASSERT_TRUE(server);
  std::string burst;
  for (int i = 0; i < kRequests; ++i) {
    burst += i == kMalformed
                 ? "GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n"
                 : "GET /?size=" + std::to_string(i + 1) + " HTTP/1.1\r\nHost: x\r\n\r\n";
  }
  const auto result = send_burst(server->port(), burst);
  ASSERT_TRUE(result.connected);
  EXPECT_FALSE(result.garbled);
  EXPECT_TRUE(result.closed);
  ASSERT_EQ(result.replies.size(), static_cast<std::size_t>(kMalformed + 1));
  for (int i = 0; i < kMalformed; ++i) {
    EXPECT_EQ(result.replies[i].status, 200) << i;
    EXPECT_EQ(result.replies[i].body, std::string(i + 1, 'x')) << i;  // its own, in order
  }
  EXPECT_EQ(result.replies.back().status, 400);
}

}  // namespace
}  // namespace stampede::server::testing
