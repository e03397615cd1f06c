// The self-naming instance: x-instance, the JSON default body, /count and /reset exact across
// worker threads; and the simulated errors of -e and -P, exact over the run.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "fixture.h"

namespace stampede::server::testing {
namespace {

nlohmann::json count(Server& server, std::string_view path = "/count") {
  RawClient client(server.port());
  auto reply = client.exchange(get(path));
  EXPECT_TRUE(reply);
  if (!reply) return {};
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(reply->content_type, "application/json");
  return nlohmann::json::parse(reply->body, nullptr, false);
}

// Sends `per_connection` requests on each of `connections` connections, from as many threads;
// returns how many answers had each status (index = status).
std::vector<int> load(Server& server, int connections, int per_connection,
                      const std::string& target = "/") {
  std::vector<std::vector<int>> statuses(connections, std::vector<int>(600));
  std::vector<std::thread> threads;
  for (int c = 0; c < connections; ++c) {
    threads.emplace_back([&, c] {
      RawClient client(server.port());
      for (int i = 0; i < per_connection; ++i) {
        auto reply = client.exchange(get(target));
        if (!reply) return;
        ++statuses[c][reply->status];
      }
    });
  }
  for (auto& t : threads)
    t.join();
  std::vector<int> total(600);
  for (const auto& s : statuses) {
    for (int i = 0; i < 600; ++i)
      total[i] += s[i];
  }
  return total;
}

TEST(ServerCounting, CountAndResetAreExactAcrossWorkers) {
  auto server = start_server_with([](server::ServerOptions& o) {
    o.cores = 2;
    o.id = "a";
  });
  ASSERT_TRUE(server);
  ASSERT_EQ(server->workers(), 2);
  EXPECT_EQ(count(*server)["served"], 0);
  const std::vector<int> statuses = load(*server, 8, 50);
  EXPECT_EQ(statuses[200], 400);
  nlohmann::json c = count(*server);
  EXPECT_EQ(c["id"], "a");
  EXPECT_EQ(c["served"], 400);
  EXPECT_EQ(c["delay"], 0);
  EXPECT_EQ(count(*server)["served"], 400);  // /count itself is not counted
  EXPECT_EQ(server->served(), 400u);

  EXPECT_EQ(count(*server, "/reset")["served"], 0);
  EXPECT_EQ(count(*server)["served"], 0);
  load(*server, 3, 7);
  EXPECT_EQ(count(*server)["served"], 21);
  const ServerTotals totals = server->stop();
  EXPECT_EQ(totals.requests, 421u);  // totals run from the start, through resets
}

TEST(ServerCounting, ManyConnectionsCountExactly) {
  // SO_REUSEPORT spreads connections by hash: the sum is exact whichever worker got what.
  auto server = start_server_with([](server::ServerOptions& o) { o.cores = 2; });
  ASSERT_TRUE(server);
  load(*server, 64, 3);
  EXPECT_EQ(count(*server)["served"], 192);
  EXPECT_EQ(server->stop().connections, 64u + 1u);
}

TEST(ServerCounting, InstanceNamesEveryResponse) {
  auto server = start_server_with([](server::ServerOptions& o) { o.id = "b"; });
  ASSERT_TRUE(server);
  RawClient client(server->port());
  auto reply = client.exchange(get("/"));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->instance, "b");
  EXPECT_EQ(reply->body, R"({"id":"b"})");
  EXPECT_EQ(reply->content_type, "application/json");
  reply = client.exchange(get("/?status=503"));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->instance, "b");
  reply = client.exchange(get("/count"));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->instance, "b");
  reply = client.exchange("NOT HTTP\r\n\r\n");
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 400);
  EXPECT_EQ(reply->instance, "b");
}

TEST(ServerCounting, BodyOptionWinsOverTheIdBody) {
  auto server = start_server_with([](server::ServerOptions& o) {
    o.body = "plain";
    o.id = "c";
  });
  ASSERT_TRUE(server);
  RawClient client(server->port());
  auto reply = client.exchange(get("/"));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->body, "plain");
  EXPECT_EQ(reply->content_type, "text/plain");
  EXPECT_EQ(reply->instance, "c");
}

TEST(ServerCounting, CountReportsTheConfiguredDelay) {
  auto server =
      start_server_with([](server::ServerOptions& o) { o.delay = std::chrono::milliseconds(5); });
  ASSERT_TRUE(server);
  EXPECT_EQ(count(*server)["delay"], 5);
}

TEST(ServerCounting, ErrorStatusForEveryRequest) {
  auto server = start_server_with([](server::ServerOptions& o) { o.error_status = 503; });
  ASSERT_TRUE(server);
  RawClient client(server->port());
  for (int i = 0; i < 20; ++i) {
    auto reply = client.exchange(get("/"));
    ASSERT_TRUE(is_answer(reply, 503, "ERROR"));
  }
  EXPECT_EQ(count(*server)["served"], 20);
  const ServerTotals totals = server->stop();
  EXPECT_EQ(totals.errors, 20u);
}

TEST(ServerCounting, PercentIsExactWithOneWorker) {
  auto server = start_server_with([](server::ServerOptions& o) { o.error_percent = 10; });
  ASSERT_TRUE(server);
  const std::vector<int> statuses = load(*server, 4, 250);
  EXPECT_EQ(statuses[500], 100);
  EXPECT_EQ(statuses[200], 900);
  EXPECT_EQ(server->stop().errors, 100u);
}

TEST(ServerCounting, PercentIsWithinTheWorkerCountWithTwoWorkers) {
  auto server = start_server_with([](server::ServerOptions& o) {
    o.error_status = 429;
    o.error_percent = 10;
    o.cores = 2;
  });
  ASSERT_TRUE(server);
  const std::vector<int> statuses = load(*server, 8, 125);
  EXPECT_GE(statuses[429], 98);
  EXPECT_LE(statuses[429], 100);
  EXPECT_EQ(statuses[429] + statuses[200], 1000);
}

}  // namespace
}  // namespace stampede::server::testing
