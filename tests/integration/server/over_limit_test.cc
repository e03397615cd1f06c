// --over-limit: past --max-connections an instance closes or resets each new connection at once
// (it refuses visibly) instead of leaving it queued; the slot holders are served as before, a
// freed slot is taken by the next client, and /count and the totals stay exact.
#include <gtest/gtest.h>

#include <sys/socket.h>

#include <cerrno>
#include <memory>
#include <optional>
#include <vector>

#include "fixture.h"

namespace stampede::server::testing {
namespace {

// What one read on a refused connection sees: 0 for an end of stream, else errno.
int refusal_seen(const RawClient& client) {
  char c;
  for (;;) {
    const ssize_t n = ::recv(client.fd(), &c, 1, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n > 0) return -1;  // an answer: not refused
    return n == 0 ? 0 : errno;
  }
}

std::unique_ptr<Server> start_capped(OverLimit over_limit) {
  ServerOptions options;
  options.max_connections = 1;
  options.over_limit = over_limit;
  options.cores = 2;  // the cap holds across workers
  return start_server(options);
}

TEST(OverLimit, ResetRefusesEveryConnectionPastTheCapAndCountsStayExact) {
  auto server = start_capped(OverLimit::Reset);
  ASSERT_TRUE(server);
  auto holder = std::make_unique<RawClient>(server->port());
  ASSERT_TRUE(holder->exchange(get("/1")));
  constexpr int kRefused = 20;
  for (int i = 0; i < kRefused; ++i) {
    RawClient client(server->port());
    ASSERT_TRUE(client.connected());  // the kernel completes the handshake; then the reset
    if (i % 2 == 1 && !client.send(get("/refused"))) {
      EXPECT_EQ(errno, ECONNRESET) << "client " << i;  // the reset came before the request
      continue;
    }
    EXPECT_EQ(refusal_seen(client), ECONNRESET) << "client " << i;
  }
  // Clients that hang up before they are refused are refused (and counted) all the same.
  for (int i = 0; i < 5; ++i)
    RawClient hang_up(server->port());
  ASSERT_TRUE(eventually([&] { return server->totals().refused == kRefused + 5; }));
  ASSERT_TRUE(holder->exchange(get("/2")));  // the holder is still served
  holder.reset();                            // its slot frees: the next client is served
  std::optional<Reply> count;
  ASSERT_TRUE(eventually([&] {  // refused while the holder's close is still in flight
    RawClient next(server->port());
    count = next.exchange(get("/count"));
    return count && count->status == 200;
  }));
  EXPECT_NE(count->body.find("\"served\":2"), std::string::npos) << count->body;  // /1 and /2
  const ServerTotals totals = server->totals();
  EXPECT_EQ(totals.requests, 2u);
  EXPECT_EQ(totals.bad_requests, 0u);
  EXPECT_EQ(totals.connections, 2u);  // the holder and the one served after it
  EXPECT_GE(totals.refused, std::uint64_t{kRefused + 5});
}

TEST(OverLimit, CloseEndsTheStreamOfAConnectionPastTheCap) {
  auto server = start_capped(OverLimit::Close);
  ASSERT_TRUE(server);
  RawClient holder(server->port());
  ASSERT_TRUE(holder.exchange(get("/1")));
  for (int i = 0; i < 10; ++i) {
    RawClient client(server->port());
    ASSERT_TRUE(client.connected());
    EXPECT_EQ(refusal_seen(client), 0) << "client " << i;  // nothing sent: a plain end of stream
  }
  EXPECT_EQ(server->totals().refused, 10u);
  EXPECT_EQ(server->totals().connections, 1u);
  auto reply = holder.exchange(get("/2"));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(server->served(), 2u);
}

TEST(OverLimit, QueueIsTheDefaultAndNeedsNoCap) {
  EXPECT_EQ(ServerOptions().over_limit, OverLimit::Queue);
  ServerOptions options;
  options.over_limit = OverLimit::Reset;
  auto plan = prepare(options);
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().message, "--over-limit needs --max-connections");
  options.max_connections = 1;
  EXPECT_TRUE(prepare(options));
}

}  // namespace
}  // namespace stampede::server::testing
