// `stampede lab` against HAProxy (Debian's `haproxy`, a test dependency the Makefile installs):
// the lab has to report what HAProxy really does. HAProxy runs as --balancer-cmd, through a
// small script that writes its configuration from the lab's placeholders.
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "lab_support.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace stampede::lab::testing {
namespace {

// haproxy.sh DIR PORT HEALTH_MS STRATEGY NAME=ADDR...: one backend with the lab's instances,
// named after them, `x-backend` set to the server that answered, checks only when HEALTH > 0.
// One thread, so that roundrobin is one rotation.
constexpr const char* kScript = R"(#!/bin/sh
dir=$1 port=$2 health=$3 strategy=$4
shift 4
cfg=$(mktemp "$dir/haproxy-XXXXXX")
check=""
[ "$health" -gt 0 ] && check="check inter $health fall 1 rise 1"
{
  printf 'global\n  nbthread 1\n'
  printf 'defaults\n  mode http\n  timeout connect 1s\n  timeout client 30s\n'
  printf '  timeout server 30s\n  retries 0\n'
  printf 'frontend fe\n  bind 127.0.0.1:%s\n  default_backend be\n' "$port"
  printf 'backend be\n  balance %s\n  option httpchk GET /count\n' "$strategy"
  printf '  http-response set-header x-backend %%s\n'
  for s in "$@"; do printf '  server %s %s %s\n' "${s%%=*}" "${s#*=}" "$check"; done
} > "$cfg"
exec haproxy -db -f "$cfg"
)";

std::string find_haproxy() {
  for (const char* dir : {"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"}) {
    const std::string path = std::string(dir) + "/haproxy";
    if (access(path.c_str(), X_OK) == 0) return path;
  }
  return "";
}

class LabHaproxy : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    temp_dir_ = std::make_unique<stampede::testing::TempDir>();
    dir_ = temp_dir_->path();
    std::ofstream(dir_ + "/haproxy.sh") << kScript;
  }
  static void TearDownTestSuite() { temp_dir_.reset(); }

  void SetUp() override {
    ASSERT_FALSE(find_haproxy().empty())
        << "haproxy is not installed: `make test` installs it (TEST_DEPS in the Makefile), or "
           "apt-get install haproxy";
  }

  static std::string command() {
    return "sh " + dir_ +
           "/haproxy.sh {dir} {port} {health} '{strategy}' a={addr:a} b={addr:b} c={addr:c}";
  }

  static std::unique_ptr<stampede::testing::TempDir> temp_dir_;
  static std::string dir_;
};

std::unique_ptr<stampede::testing::TempDir> LabHaproxy::temp_dir_;
std::string LabHaproxy::dir_;

void expect_leastconn_under_five_percent(const nlohmann::json& doc) {
  const auto& slow = run_named(doc, "slow/leastconn");
  EXPECT_LT(shares(slow)["c"], 0.05) << slow.dump();
  EXPECT_GT(counts(slow, "count")["c"], 0u);  // slow, not out of the pool
  const auto& rr = run_named(doc, "slow/roundrobin");
  EXPECT_NEAR(shares(rr)["c"], 1.0 / 3, 0.01);
  const auto around = findings_of(doc, "routes-around-slow");
  ASSERT_EQ(around.size(), 1u);
  EXPECT_EQ(around[0]["scope"], "slow/leastconn");
  const auto low = findings_of(doc, "even-share-low-throughput");
  ASSERT_EQ(low.size(), 1u);
  EXPECT_EQ(low[0]["scope"], "slow/roundrobin");
}

void expect_every_session_on_one_instance(const nlohmann::json& doc) {
  const auto& run = run_named(doc, "sticky/hdr(x-session)");
  ASSERT_EQ(run["sessions"].size(), 4u);
  for (const auto& s : run["sessions"]) {
    EXPECT_EQ(s["requests"], 100);
    EXPECT_EQ(s["errors"], 0);
    EXPECT_EQ(s["x_instance"].size(), 1u) << s.dump();
  }
  EXPECT_EQ(findings_of(doc, "session-split").size(), 0u);
  EXPECT_EQ(findings_of(doc, "sessions-kept").size(), 1u);
}

// One lab (about 6 s) over even, slow and sticky with roundrobin, leastconn and hdr(x-session).
TEST_F(LabHaproxy, ReportsWhatRoundRobinLeastconnAndHeaderHashingDo) {
  const LabRun lab =
      run_lab({"--balancer-cmd", command(), "--strategies", "roundrobin,leastconn,hdr(x-session)",
               "--sticky-strategy", "hdr(x-session)", "--scenarios", "even,slow,sticky", "-t", "1",
               "--session-requests", "100"});
  ASSERT_EQ(lab.status, 0) << lab.err << lab.out;
  EXPECT_TRUE(lab.doc["ok"].get<bool>());
  EXPECT_EQ(findings_of(lab.doc, "sources-agree").size(), 1u) << lab.out;
  {
    SCOPED_TRACE("roundrobin: even within one request per instance");
    expect_round_robin_within_one_request(lab.doc, "even/roundrobin");
  }
  {
    SCOPED_TRACE("leastconn: the 50 ms instance under 5%");
    expect_leastconn_under_five_percent(lab.doc);
  }
  {
    SCOPED_TRACE("balance hdr(x-session): every session on one instance");
    expect_every_session_on_one_instance(lab.doc);
  }
}

TEST_F(LabHaproxy, OutageFailuresDependOnTheHealthCheck) {
  const LabRun lab =
      run_lab({"--balancer-cmd", command(), "--strategies", "roundrobin", "--scenarios", "outage",
               "--health-intervals", "0,200", "--outage-duration", "2s", "--kill-after", "0.5s"});
  ASSERT_EQ(lab.status, 0) << lab.err << lab.out;
  const auto& off = run_named(lab.doc, "outage/roundrobin/health=off");
  const auto& checked = run_named(lab.doc, "outage/roundrobin/health=200ms");
  // Without checks HAProxy keeps sending c its turns: failures until the end of the run.
  EXPECT_GT(off["errors"].get<std::uint64_t>(), 100u);
  EXPECT_GT(off["outage"]["last_failure_after_kill_s"].get<double>(), 1.2);
  const auto undetected = findings_of(lab.doc, "outage-undetected");
  ASSERT_EQ(undetected.size(), 1u);
  EXPECT_EQ(undetected[0]["scope"], "outage/roundrobin/health=off");
  // With a 200 ms check (fall 1) c is out within a few intervals.
  EXPECT_LT(checked["errors"].get<std::uint64_t>(), off["errors"].get<std::uint64_t>());
  if (checked["errors"].get<std::uint64_t>() > 0) {
    EXPECT_LT(checked["outage"]["last_failure_after_kill_s"].get<double>(), 1.0);
  }
}

}  // namespace
}  // namespace stampede::lab::testing
