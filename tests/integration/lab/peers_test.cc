// The limit and hang scenarios against HAProxy and nginx (Debian's packages, test dependencies
// the Makefile installs), driven through the scripts the docs show (examples/lab/haproxy.sh and
// nginx.sh): {retries} and {timeout} reach the peer's configuration, and the lab reports what the
// peer did with refusals and with a stopped instance, its three sources agreeing to the request.
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "lab_support.h"

namespace stampede::lab::testing {
namespace {

// sh examples/lab/PEER.sh with every placeholder the scripts take.
std::string peer_command(const std::string& peer) {
  return "sh " STAMPEDE_SOURCE_DIR "/examples/lab/" + peer +
         ".sh {dir} {port} {health} {retries} {timeout} '{strategy}' a={addr:a} b={addr:b} "
         "c={addr:c}";
}

// Each instance's /count equals the responses carrying its x-instance, in every run: nothing but
// the load reached the instances (the lab asks a peer's /lb-stats only after the counts).
void expect_counts_exact(const nlohmann::json& run) {
  const auto by_count = counts(run, "count");
  ASSERT_EQ(by_count.size(), 3u) << run.dump();
  EXPECT_EQ(by_count, counts(run, "x_instance")) << run["label"];
}

TEST(LabPeers, HaproxyRetriesRedispatchFailedConnectionsNotResetRequests) {
  ASSERT_TRUE(installed("haproxy")) << "haproxy is not installed: `make test` installs it "
                                       "(TEST_DEPS in the Makefile), or apt-get install haproxy";
  const LabRun lab = run_lab({"--balancer-cmd", peer_command("haproxy"), "--strategies",
                              "roundrobin", "--scenarios", "limit", "-t", "300ms", "--delay", "a=5",
                              "--delay", "b=5", "--delay", "c=5", "--limit", "c=2"});
  ASSERT_EQ(lab.status, 0) << lab.err << lab.out;
  const auto& with = run_named(lab.doc, "limit/roundrobin/retries=1");
  const auto& without = run_named(lab.doc, "limit/roundrobin/retries=0");
  expect_counts_exact(with);
  expect_counts_exact(without);
  // A connection c resets before HAProxy counts it as established is a 503 without retries and
  // re-sent to a or b with `retries 1` + `option redispatch`.
  EXPECT_GT(without["error_codes"].value("503", std::uint64_t{0}), 0u) << without.dump();
  EXPECT_EQ(with["error_codes"].value("503", std::uint64_t{0}), 0u) << with.dump();
  EXPECT_GT(with["requests"].get<std::uint64_t>(), 100u);
  EXPECT_TRUE(lab.doc["ok"].get<bool>());
}

// The hang with a 250 ms proxy_read_timeout (nginx's limit runs, docs/lab.md's table, are left
// to the docs: the CI budget has room for one nginx lab).
TEST(LabPeers, NginxResendsWhatTimedOutAndTheHungInstanceRunsItToo) {
  ASSERT_TRUE(installed("nginx")) << "nginx is not installed: `make test` installs it "
                                     "(TEST_DEPS in the Makefile), or apt-get install nginx";
  const LabRun lab =
      run_lab({"--balancer-cmd", peer_command("nginx"), "--strategies", "rr", "--scenarios", "hang",
               "--health-intervals", "0", "--outage-duration", "1.0s", "--kill-after", "0.2s",
               "--hang-for", "0.6s", "--backend-timeout", "250"});
  ASSERT_EQ(lab.status, 0) << lab.err << lab.out;
  // The hang: every request that waited on c timed out after 250 ms and went to a or b; c ran
  // them anyway when continued: its /count above its x-instance, explained in a note.
  const auto& hang = run_named(lab.doc, "hang/rr/health=off");
  EXPECT_EQ(hang["errors"], 0) << hang.dump();
  EXPECT_EQ(hang["hang"]["backend_timeout_ms"], 250);
  const auto late = findings_of(lab.doc, "hang-late-answers");
  ASSERT_EQ(late.size(), 1u) << lab.out;
  EXPECT_NE(late[0]["text"].get<std::string>().find("it ran twice"), std::string::npos);
  const auto by_count = counts(hang, "count");
  const auto by_header = counts(hang, "x_instance");
  EXPECT_EQ(by_count.at("a"), by_header.at("a"));
  EXPECT_EQ(by_count.at("b"), by_header.at("b"));
  EXPECT_GT(by_count.at("c"), by_header.at("c"));
  const auto damage = findings_of(lab.doc, "hang-damage");
  ASSERT_EQ(damage.size(), 1u);
  EXPECT_NE(damage[0]["text"].get<std::string>().find("nginx OSS has no active health checks"),
            std::string::npos);
  EXPECT_TRUE(lab.doc["ok"].get<bool>());
}

}  // namespace
}  // namespace stampede::lab::testing
