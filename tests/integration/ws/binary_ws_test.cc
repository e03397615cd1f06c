// The stampede binary on ws:// URLs: a run against `stampede serve` in-process, and the report.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <memory>

#include "server/server.h"
#include "support/in_process.h"
#include "support/process.h"

namespace stampede::testing {
namespace {

using std::chrono::milliseconds;

TEST(BinaryWs, RunsAndReportsMessages) {
  auto s = start_server();
  ASSERT_TRUE(s);
  const std::string url = "ws://127.0.0.1:" + std::to_string(s->port()) + "/";
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
  EXPECT_EQ(s->stop().requests, 35u);
}

// --index in a ws:// URL: one line, exit status 2, nothing sent; in the message it is accepted.
TEST(BinaryWs, IndexParameterInTheUrlIsAUsageError) {
  auto s = start_server();
  ASSERT_TRUE(s);
  const std::string base = "ws://127.0.0.1:" + std::to_string(s->port());
  const auto refused =
      run_command({STAMPEDE_BINARY, "-n", "5", "--quiet", "--index", "IDX", base + "/chat?id=IDX"},
                  milliseconds(20000));
  EXPECT_EQ(refused.status, 2);
  EXPECT_EQ(refused.err,
            "stampede: --index: 'IDX' is in the URL, but a WebSocket URL is sent once per "
            "connection: put it in the message (--data, -P, -p FILE)\n");
  EXPECT_EQ(refused.out, "");
  const auto accepted = run_command({STAMPEDE_BINARY, "-n", "5", "-c", "1", "--quiet", "--json",
                                     "--index", "IDX", "--data", "id=IDX", base + "/chat"},
                                    milliseconds(20000));
  ASSERT_EQ(accepted.status, 0) << accepted.err;
  EXPECT_EQ(nlohmann::json::parse(accepted.out)["websocket"]["messages"], 5);
  EXPECT_EQ(s->stop().requests, 5u);  // the refused run sent nothing
}

}  // namespace
}  // namespace stampede::testing
