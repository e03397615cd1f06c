#include "lab/http_client.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_server.h"

namespace stampede::lab {
namespace {

using namespace std::chrono_literals;

net::Address loopback(std::uint16_t port) {
  auto a = net::resolve("127.0.0.1", port);
  EXPECT_TRUE(a.ok());
  return *a;
}

TEST(LabHttpClient, ReadsAnInstancesCountAndResetsIt) {
  server::ServerOptions options;
  options.id = "a";
  auto srv = stampede::testing::start_server(options);
  ASSERT_TRUE(srv);
  const net::Address address = loopback(srv->port());
  for (int i = 0; i < 3; ++i) {
    auto r = http_get(address, "/", 2000ms);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, R"({"id":"a"})");
  }
  auto count = http_get(address, "/count", 2000ms);
  ASSERT_TRUE(count.ok());
  auto doc = nlohmann::json::parse(count->body);
  EXPECT_EQ(doc["served"], 3);
  ASSERT_TRUE(http_get(address, "/reset", 2000ms).ok());
  count = http_get(address, "/count", 2000ms);
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(nlohmann::json::parse(count->body)["served"], 0);
  srv->stop();
}

TEST(LabHttpClient, NamesWhyThereIsNoAnswer) {
  auto port = pick_free_port("127.0.0.1");
  ASSERT_TRUE(port.ok());
  auto refused = http_get(loopback(*port), "/", 1000ms);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, "connection refused");
  EXPECT_FALSE(can_connect(loopback(*port), 200ms));

  // A listener that never answers: the kernel completes the handshake, nothing is read.
  auto silent = net::listen_tcp(loopback(0));
  ASSERT_TRUE(silent.ok());
  auto bound = net::local_address(silent->get());
  ASSERT_TRUE(bound.ok());
  EXPECT_TRUE(can_connect(*bound, 200ms));
  auto mute = http_get(*bound, "/", 300ms);
  ASSERT_FALSE(mute.ok());
  EXPECT_EQ(mute.error().message, "no response within 300 ms");
}

TEST(LabHttpClient, RefusesAddressesOffTheLoopback) {
  auto outside = net::resolve("192.0.2.1", 80);  // TEST-NET-1: never contacted
  ASSERT_TRUE(outside.ok());
  auto r = http_get(*outside, "/", 100ms);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "192.0.2.1:80 is not a loopback address");
}

}  // namespace
}  // namespace stampede::lab
