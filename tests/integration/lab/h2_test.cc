// The h2 scenario (issue 17): two HTTP/2 connections of 10 streams each through the built-in
// balancer and through HAProxy (Debian's `haproxy`, a test dependency the Makefile installs) run
// by examples/lab/haproxy.sh in `mode tcp` and in `mode http` with an h2 front. The lab is not
// told which kind of balancer it has: the finding is what it measured.
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "lab_support.h"

namespace stampede::lab::testing {
namespace {

// examples/lab/haproxy.sh with HAPROXY_MODE=`mode`, as docs/lab.md shows it.
std::string haproxy_h2_command(const std::string& mode) {
  return "HAPROXY_MODE=" + mode +
         " sh " STAMPEDE_SOURCE_DIR
         "/examples/lab/haproxy.sh {dir} {port} {health} {retries} {timeout} '{strategy}' "
         "a={addr:a} b={addr:b} c={addr:c}";
}

// One h2 lab of 300 ms on the default pool (a, b, c).
LabRun run_h2_lab(std::vector<std::string> balancer_args) {
  std::vector<std::string> args = {"--scenarios", "h2", "-t", "300ms"};
  args.insert(args.end(), balancer_args.begin(), balancer_args.end());
  return run_lab(args);
}

// The run's load and outcome: 2 connections x 10 streams, no failure, /count equal to
// x-instance for every instance.
void expect_h2_run(const nlohmann::json& run) {
  ASSERT_TRUE(run.is_object());
  ASSERT_TRUE(run.contains("h2")) << run.dump();
  EXPECT_EQ(run["h2"]["connections"], 2) << run.dump();
  EXPECT_EQ(run["h2"]["streams"], 10);
  EXPECT_EQ(run["errors"], 0) << run.dump();
  EXPECT_GT(run["requests"].get<std::uint64_t>(), 100u);
  const auto by_count = counts(run, "count");
  ASSERT_EQ(by_count.size(), 3u) << run.dump();
  EXPECT_EQ(by_count, counts(run, "x_instance"));
}

void expect_per_request(const LabRun& lab, const std::string& label) {
  ASSERT_EQ(lab.status, 0) << lab.err << lab.out;
  const auto& run = run_named(lab.doc, label);
  expect_h2_run(run);
  EXPECT_EQ(counts(run, "count"), counts(run, "x_backend"));
  for (const auto& [name, share] : shares(run))
    EXPECT_NEAR(share, 1.0 / 3, 0.2 / 3) << name << " " << run.dump();
  const auto found = findings_of(lab.doc, "h2-per-request");
  ASSERT_EQ(found.size(), 1u) << lab.out;
  EXPECT_EQ(found[0]["scope"], label);
  EXPECT_NE(found[0]["text"].get<std::string>().find("requests are balanced one by one"),
            std::string::npos);
  EXPECT_TRUE(findings_of(lab.doc, "h2-follows-connections").empty());
  EXPECT_EQ(findings_of(lab.doc, "sources-agree").size(), 1u) << lab.out;
  EXPECT_TRUE(lab.doc["ok"].get<bool>());
}

TEST(LabH2, BuiltInBalancerSpreadsEveryStream) {
  expect_per_request(run_h2_lab({}), "h2/rr");
}

TEST(LabH2, HaproxyHttpModeWithAnH2FrontSpreadsEveryStream) {
  ASSERT_TRUE(installed("haproxy")) << "haproxy is not installed: `make test` installs it "
                                       "(TEST_DEPS in the Makefile), or apt-get install haproxy";
  expect_per_request(
      run_h2_lab({"--balancer-cmd", haproxy_h2_command("h2"), "--strategies", "roundrobin"}),
      "h2/roundrobin");
}

// mode tcp: each connection goes whole to one instance; with 2 connections over 3 instances
// one instance serves nothing, and the lab says the shares follow connections.
TEST(LabH2, HaproxyTcpModeSharesFollowConnections) {
  ASSERT_TRUE(installed("haproxy")) << "haproxy is not installed: `make test` installs it "
                                       "(TEST_DEPS in the Makefile), or apt-get install haproxy";
  const LabRun lab =
      run_h2_lab({"--balancer-cmd", haproxy_h2_command("tcp"), "--strategies", "roundrobin"});
  ASSERT_EQ(lab.status, 0) << lab.err << lab.out;
  const auto& run = run_named(lab.doc, "h2/roundrobin");
  expect_h2_run(run);
  const auto by_count = counts(run, "count");
  const auto used = std::count_if(by_count.begin(), by_count.end(),
                                  [](const auto& entry) { return entry.second > 0; });
  EXPECT_GE(used, 1);
  EXPECT_LE(used, 2) << run.dump();
  EXPECT_FALSE(run["backend_header"].get<bool>());  // mode tcp: no HTTP to set x-backend in
  const auto found = findings_of(lab.doc, "h2-follows-connections");
  ASSERT_EQ(found.size(), 1u) << lab.out;
  EXPECT_EQ(found[0]["scope"], "h2/roundrobin");
  EXPECT_NE(found[0]["text"].get<std::string>().find(
                "shares follow connections: this balancer balances connections, not requests"),
            std::string::npos);
  EXPECT_TRUE(findings_of(lab.doc, "h2-per-request").empty());
  EXPECT_EQ(findings_of(lab.doc, "no-backend-header").size(), 1u);
  EXPECT_TRUE(lab.doc["ok"].get<bool>());
}

// A balancer that takes no HTTP/2 from its clients (nginx.sh: its `listen` has no http2) ends
// the lab at the first request, naming it, instead of a run of failures.
TEST(LabH2, ABalancerWithoutHttp2EndsTheLabAtItsFirstRequest) {
  ASSERT_TRUE(installed("nginx")) << "nginx is not installed: `make test` installs it "
                                     "(TEST_DEPS in the Makefile), or apt-get install nginx";
  const LabRun lab = run_h2_lab({"--balancer-cmd",
                                 "sh " STAMPEDE_SOURCE_DIR
                                 "/examples/lab/nginx.sh {dir} {port} {health} {retries} "
                                 "{timeout} '{strategy}' a={addr:a} b={addr:b} c={addr:c}",
                                 "--strategies", "rr"});
  EXPECT_EQ(lab.status, 1) << lab.err << lab.out;
  EXPECT_EQ(lab.err.rfind("stampede: lab: h2/rr: the balancer at http://127.0.0.1:", 0), 0u)
      << lab.err;
  EXPECT_NE(lab.err.find("answered no first HTTP/2 (h2c) GET / (not HTTP/2): it does not take "
                         "HTTP/2 from its clients"),
            std::string::npos)
      << lab.err;
}

}  // namespace
}  // namespace stampede::lab::testing
