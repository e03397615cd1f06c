// A real HTTP/2 peer against the in-process server: h2load (nghttp2-client, TEST_DEPS) sends
// 1000 requests over 4 h2c connections, 8 streams at a time; every one is answered and counted.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>

#include "fixture.h"
#include "support/process.h"

namespace stampede::server::testing {
namespace {

constexpr const char* kH2load = "/usr/bin/h2load";

TEST(ServerH2load, ThousandRequestsOverFourConnectionsAreAllCounted) {
  if (access(kH2load, X_OK) != 0) GTEST_SKIP() << kH2load << " missing (nghttp2-client)";
  auto server = start_server_with([](server::ServerOptions& o) { o.cores = 2; });
  ASSERT_TRUE(server);
  const std::string url = "http://127.0.0.1:" + std::to_string(server->port()) + "/";
  const stampede::testing::RunResult run = stampede::testing::run_command(
      {kH2load, "-n", "1000", "-c", "4", "-m", "8", url}, std::chrono::seconds(20));
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("1000 succeeded, 0 failed, 0 errored"), std::string::npos) << run.out;
  RawClient client(server->port());
  auto reply = client.exchange(get("/count"));
  ASSERT_TRUE(reply);
  EXPECT_EQ(nlohmann::json::parse(reply->body, nullptr, false)["served"], 1000);
  EXPECT_EQ(server->stop().requests, 1000u);
}

}  // namespace
}  // namespace stampede::server::testing
