// `stampede balance` as a process: bad configuration is one line and exit status 2; a good
// one listens, writes its ready file and stops cleanly on SIGTERM.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>

#include "lb_support.h"
#include "support/temp_dir.h"

namespace stampede::balancer::testing {
namespace {

using stampede::testing::run_command;

void expect_usage_error(std::vector<std::string> args, const std::string& needle) {
  args.insert(args.begin(), {STAMPEDE_BINARY, "balance"});
  auto r = run_command(args, 10000ms);
  EXPECT_EQ(r.status, 2) << needle << ": " << r.err;
  EXPECT_EQ(r.err.rfind("stampede: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

TEST(BalanceCli, BadConfigurationIsExitStatus2) {
  expect_usage_error({"--listen", "127.0.0.1:0"}, "no backend");
  expect_usage_error({"--backend", "a=127.0.0.1:1", "--backend", "a=127.0.0.1:2"}, "duplicate");
  expect_usage_error({"--backend", "a=localhost-no-port"}, "host:port");
  expect_usage_error({"--backend", "a=127.0.0.1:1", "--strategy", "fastest"}, "strategy");
  expect_usage_error({"--backend", "a=no.such.host.invalid:80"}, "resolve");
}

TEST(BalanceCli, PortInUseIsExitStatus2) {
  EchoBackend echo("e");
  ASSERT_TRUE(echo.start());
  expect_usage_error(
      {"--listen", "127.0.0.1:" + std::to_string(echo.port()), "--backend", "a=127.0.0.1:1"},
      "in use");
}

TEST(BalanceCli, RunsFromAConfigFileAndStopsOnSigterm) {
  EchoBackend echo("e");
  ASSERT_TRUE(echo.start());
  const stampede::testing::TempDir temp_dir;
  const std::string& dir = temp_dir.path();
  std::ofstream(dir + "/lb.json") << R"({"listen": "127.0.0.1:0", "strategy": "least",
    "backend": ["e=127.0.0.1:)" << echo.port()
                                  << R"("]})";
  stampede::testing::ChildProcess lb(
      {STAMPEDE_BINARY, "balance", "--config", dir + "/lb.json", "--ready-file", dir + "/ready"});
  int port = stampede::testing::wait_for_port_file(dir + "/ready", 10000ms);
  ASSERT_GT(port, 0);
  auto r = http_get(static_cast<std::uint16_t>(port), "/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("x-backend"), "e");
  auto stats = http_get(static_cast<std::uint16_t>(port), "/lb-stats");
  ASSERT_TRUE(stats);
  EXPECT_NE(stats->body.find("\"strategy\":\"least\""), std::string::npos);
  ASSERT_TRUE(lb.signal(SIGTERM));
  EXPECT_EQ(lb.wait(10000ms), 0);
}

TEST(BalanceCli, AnUnwritableReadyFileIsOneLineAndExitStatus1) {
  EchoBackend echo("e");
  ASSERT_TRUE(echo.start());
  const stampede::testing::TempDir temp_dir;
  const std::string& dir = temp_dir.path();
  auto r = run_command(
      {STAMPEDE_BINARY, "balance", "--listen", "127.0.0.1:0", "--backend",
       "e=127.0.0.1:" + std::to_string(echo.port()), "--ready-file", dir + "/no-such-dir/ready"},
      10000ms);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("stampede: --ready-file: cannot write"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no-such-dir"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace stampede::balancer::testing
