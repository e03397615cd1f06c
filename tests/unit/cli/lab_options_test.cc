#include "cli/lab_options.h"

#include <gtest/gtest.h>

namespace stampede::lab {
namespace {

using std::chrono::milliseconds;

Expected<CommandLine> parse(std::vector<std::string> args) {
  args.insert(args.begin(), "lab");
  return parse_command_line(args);
}

std::string error_of(std::vector<std::string> args) {
  auto r = parse(std::move(args));
  return r.ok() ? std::string("(accepted)") : r.error().message;
}

TEST(LabOptions, DefaultsAreTheGuidesProcedureInAMinute) {
  auto cli = parse({});
  ASSERT_TRUE(cli.ok()) << cli.error().message;
  const LabConfig& c = cli->plan.config;
  ASSERT_EQ(c.instances.size(), 3u);
  EXPECT_EQ(c.instances[2].name, "c");
  EXPECT_EQ(c.instances[0].port, 0);
  EXPECT_EQ(c.balancer.kind, BalancerKind::BuiltIn);
  EXPECT_EQ(c.balancer.strategies, (std::vector<std::string>{"rr", "least", "sticky"}));
  EXPECT_EQ(c.scenarios, default_scenarios());
  EXPECT_EQ(c.load.connections, 12u);
  EXPECT_EQ(c.slow_instance, "c");
  EXPECT_EQ(c.slow_delay, milliseconds(50));
  EXPECT_EQ(c.kill_instance, "c");
  EXPECT_EQ(c.sessions, 4u);
  EXPECT_EQ(c.session_requests, 300u);
  EXPECT_EQ(c.health_intervals,
            (std::vector<milliseconds>{milliseconds(0), milliseconds(1000), milliseconds(200)}));
  EXPECT_EQ(c.stampede_path, "/proc/self/exe");
  EXPECT_EQ(load_strategies(c.balancer), (std::vector<std::string>{"rr", "least"}));
}

TEST(LabOptions, InstancesDelaysAndScenarioSettings) {
  auto cli = parse({"--instance", "a=127.0.0.1:9746", "--instance", "b=[::1]:0", "--delay", "b=20",
                    "--slow", "a=80ms", "--kill", "b", "-c", "4", "-t", "1.5s",
                    "--health-intervals", "0,250ms", "--scenarios", "slow,outage"});
  ASSERT_TRUE(cli.ok()) << cli.error().message;
  const LabConfig& c = cli->plan.config;
  ASSERT_EQ(c.instances.size(), 2u);
  EXPECT_EQ(c.instances[0].port, 9746);
  EXPECT_EQ(c.instances[1].host, "::1");
  EXPECT_EQ(c.instances[1].delay, milliseconds(20));
  EXPECT_EQ(c.slow_instance, "a");
  EXPECT_EQ(c.slow_delay, milliseconds(80));
  EXPECT_EQ(c.kill_instance, "b");
  EXPECT_EQ(c.load.connections, 4u);
  EXPECT_EQ(c.load.duration, milliseconds(1500));
  EXPECT_EQ(c.health_intervals, (std::vector<milliseconds>{milliseconds(0), milliseconds(250)}));
}

TEST(LabOptions, BalancerKinds) {
  auto cmd = parse({"--balancer-cmd", "haproxy -f {dir}/x.cfg # {port}", "--strategies",
                    "roundrobin,hdr(x-session)", "--sticky-strategy", "hdr(x-session)"});
  ASSERT_TRUE(cmd.ok()) << cmd.error().message;
  EXPECT_EQ(cmd->plan.config.balancer.kind, BalancerKind::Command);
  EXPECT_EQ(load_strategies(cmd->plan.config.balancer), (std::vector<std::string>{"roundrobin"}));
  auto url = parse({"--balancer-url", "http://127.0.0.1:9745/"});
  ASSERT_TRUE(url.ok()) << url.error().message;
  EXPECT_EQ(url->plan.config.balancer.kind, BalancerKind::External);
  EXPECT_EQ(load_strategies(url->plan.config.balancer), (std::vector<std::string>{""}));
}

TEST(LabOptions, RejectsWhatCannotRun) {
  EXPECT_NE(error_of({"--instance", "a=10.0.0.1:80", "--instance", "b=127.0.0.1:0"})
                .find("not a loopback address"),
            std::string::npos);
  EXPECT_NE(error_of({"--balancer-url", "http://example.com/"}).find("loopback"),
            std::string::npos);
  EXPECT_NE(error_of({"--balancer-cmd", "node balancer.mjs"}).find("{port}"), std::string::npos);
  EXPECT_NE(error_of({"--strategies", "rr,least"}).find("sticky scenario"), std::string::npos);
  EXPECT_NE(error_of({"--strategies", "sticky", "--scenarios", "even"}).find("other than"),
            std::string::npos);
  EXPECT_NE(error_of({"--strategies", "rr,bogus,sticky"}).find("--strategies"), std::string::npos);
  EXPECT_NE(error_of({"--balancer-url", "http://127.0.0.1:1/", "--strategies", "rr"})
                .find("--balancer-url alone"),
            std::string::npos);
  EXPECT_NE(error_of({"-n", "3", "--instance", "a=127.0.0.1:0"}).find("not both"),
            std::string::npos);
  EXPECT_NE(error_of({"-n", "1"}).find("2 to 26"), std::string::npos);
  EXPECT_NE(error_of({"--delay", "x=5"}).find("no instance named 'x'"), std::string::npos);
  EXPECT_NE(error_of({"--slow", "x"}).find("no instance named 'x'"), std::string::npos);
  EXPECT_NE(error_of({"--kill-after", "7s"}).find("--kill-after"), std::string::npos);
  EXPECT_NE(
      error_of({"--instance", "a=127.0.0.1:5", "--instance", "b=127.0.0.1:5"}).find("same port"),
      std::string::npos);
  EXPECT_NE(error_of({"--instance", "a=127.0.0.1"}).find("HOST:PORT"), std::string::npos);
  EXPECT_NE(error_of({"--scenarios", "fast"}).find("unknown scenario"), std::string::npos);
  EXPECT_NE(error_of({"-c", "0"}).find("-c"), std::string::npos);
  EXPECT_NE(error_of({"--sessions", "0"}).find("--sessions"), std::string::npos);
  EXPECT_NE(error_of({"--bogus"}).find("bogus"), std::string::npos);
}

// The hang's finding quotes the backend timeout: one the balancer would never be given is bad
// usage, as is a cap of 0 connections for the limit scenario.
TEST(LabOptions, RefusesABackendTimeoutTheBalancerDoesNotTake) {
  const std::string hang = "--scenarios=hang";
  EXPECT_NE(error_of({hang, "--backend-timeout", "500", "--balancer-cmd", "sh h.sh {port}"})
                .find("--backend-timeout needs a balancer that takes it"),
            std::string::npos);
  EXPECT_NE(error_of({hang, "--backend-timeout", "500", "--balancer-url", "http://127.0.0.1:1/"})
                .find("--backend-timeout"),
            std::string::npos);
  EXPECT_TRUE(
      parse({hang, "--backend-timeout", "500", "--balancer-cmd", "sh h.sh {port} {timeout}"}).ok());
  EXPECT_TRUE(parse({hang, "--balancer-cmd", "sh h.sh {port}"}).ok());  // its own timeout
  EXPECT_TRUE(parse({hang, "--backend-timeout", "500"}).ok());          // the built-in one
  EXPECT_NE(error_of({"--scenarios", "limit", "--limit", "c=0"}).find("--limit"),
            std::string::npos);
}

TEST(LabOptions, Help) {
  auto cli = parse({"--help"});
  ASSERT_TRUE(cli.ok());
  EXPECT_TRUE(cli->help);
  EXPECT_NE(cli->help_text.find("--balancer-cmd"), std::string::npos);
}

TEST(LabOptions, LoopbackHosts) {
  EXPECT_TRUE(is_loopback_host("127.0.0.1"));
  EXPECT_TRUE(is_loopback_host("127.8.9.10"));
  EXPECT_TRUE(is_loopback_host("::1"));
  EXPECT_TRUE(is_loopback_host("localhost"));
  EXPECT_FALSE(is_loopback_host("128.0.0.1"));
  EXPECT_FALSE(is_loopback_host("::2"));
  EXPECT_FALSE(is_loopback_host("example.com"));
}

// --h2-connections and --h2-streams: numbers into the config; their ranges, the pool and the
// scenario are prepare()'s (lab/h2.h; tests/unit/lab/h2_sizes_test.cc), one line each.
TEST(LabOptions, H2SizesGoToTheH2Scenario) {
  auto cli = parse({"--scenarios", "h2", "-n", "5", "--h2-connections", "4", "--h2-streams", "32"});
  ASSERT_TRUE(cli.ok()) << cli.error().message;
  EXPECT_EQ(cli->plan.config.h2_connections, 4u);
  EXPECT_EQ(cli->plan.config.h2_streams, 32u);
  EXPECT_EQ(error_of({"--scenarios", "h2", "--h2-streams", "ten"}),
            "--h2-streams: expected a whole number, got 'ten'");
  EXPECT_EQ(error_of({"--scenarios", "h2", "--h2-connections", "3"})
                .rfind("--h2-connections: 1 to 2 with 3 instances: the h2 scenario needs fewer "
                       "connections than instances",
                       0),
            0u);
  EXPECT_EQ(error_of({"--h2-streams", "8"}),
            "--h2-connections and --h2-streams set the h2 scenario's load: add h2 to --scenarios");
}

}  // namespace
}  // namespace stampede::lab
