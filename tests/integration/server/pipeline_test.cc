// serve answers pipelined requests in order: 100 in one write with a malformed one in the
// middle. Those before it are answered, in order, then its 400, then the connection closes;
// nothing after the malformed one is answered.
#include <gtest/gtest.h>

#include <string>

#include "fixture.h"
#include "support/pipelined_burst.h"

namespace stampede::server::testing {
namespace {

TEST(ServerPipelining, HundredInOneWriteStopAtTheMalformedOne) {
  auto server = start_server();
  ASSERT_TRUE(server);
  const auto result = stampede::testing::send_burst(
      server->port(), stampede::testing::burst_with_malformed([](int i) {
        return "GET /?size=" + std::to_string(i + 1) + " HTTP/1.1\r\nHost: x\r\n\r\n";
      }));
  stampede::testing::expect_stopped_at_malformed(result,
                                                 [](int i) { return std::string(i + 1, 'x'); });
}

}  // namespace
}  // namespace stampede::server::testing
