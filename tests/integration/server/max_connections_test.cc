// --max-connections (HAProxy's maxconn): past the cap the server accepts nothing; the kernel
// queues new connections until one closes, then the next is accepted and served.
#include <gtest/gtest.h>

#include "fixture.h"

namespace stampede::server::testing {
namespace {

TEST(MaxConnections, PastTheCapNothingIsAcceptedUntilOneCloses) {
  auto server = start_server_with([](server::ServerOptions& o) { o.max_connections = 2; });
  ASSERT_TRUE(server);
  auto first = std::make_unique<RawClient>(server->port());
  RawClient second(server->port());
  ASSERT_TRUE(first->exchange(get("/1")));
  ASSERT_TRUE(second.exchange(get("/2")));
  RawClient third(server->port());
  ASSERT_TRUE(third.connected());  // queued by the kernel
  ASSERT_TRUE(third.send(get("/3")));
  EXPECT_FALSE(third.readable(std::chrono::milliseconds(300)));  // not accepted, not answered
  EXPECT_EQ(server->totals().connections, 2u);
  first.reset();  // one closes: the queued one is accepted at once
  auto reply = third.read_reply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(server->totals().connections, 3u);
  // Still two at most: a fourth waits while second and third are open.
  RawClient fourth(server->port());
  ASSERT_TRUE(fourth.send(get("/4")));
  EXPECT_FALSE(fourth.readable(std::chrono::milliseconds(300)));
  EXPECT_EQ(server->totals().connections, 3u);
}

}  // namespace
}  // namespace stampede::server::testing
