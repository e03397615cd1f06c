// The stampede binary on ws:// URLs: a run against `stampede serve` in-process, and the report.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <memory>

#include "server/server.h"
#include "support/process.h"

namespace stampede::testing {
namespace {

using std::chrono::milliseconds;

TEST(BinaryWs, RunsAndReportsMessages) {
  server::ServerOptions options;
  options.port = 0;
  options.cores = 1;
  auto s = server::Server::start(options);
  ASSERT_TRUE(s) << s.error().message;
  const std::string url = "ws://127.0.0.1:" + std::to_string((*s)->port()) + "/";
  const auto json = run_command(
      {STAMPEDE_BINARY, "-n", "30", "-c", "3", "--cores", "1", "--json", "--data", "bonjour", url},
      milliseconds(20000));
  ASSERT_EQ(json.status, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["totalRequests"], 30);
  EXPECT_EQ(j["totalErrors"], 0);
  EXPECT_EQ(j["websocket"]["messages"], 30);
  EXPECT_EQ(j["websocket"]["connectionsOpened"], 3);
  const auto text =
      run_command({STAMPEDE_BINARY, "-n", "5", "-c", "1", "--quiet", url}, milliseconds(20000));
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("Completed requests:  5\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Messages answered:   5\n"), std::string::npos) << text.out;
  EXPECT_EQ((*s)->stop().requests, 35u);
}

}  // namespace
}  // namespace stampede::testing
