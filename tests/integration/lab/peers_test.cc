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

bool installed(const std::string& program) {
  for (const char* dir : {"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"}) {
    if (access((std::string(dir) + "/" + program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

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
                              "roundrobin", "--scenarios", "limit", "-t", "500ms", "--delay", "a=5",
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

}  // namespace
}  // namespace stampede::lab::testing
