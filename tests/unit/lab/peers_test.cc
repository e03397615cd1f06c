// HAProxy and nginx in the lab's findings: which peer a --balancer-cmd names, the settings the
// hang and limit findings name for each, the hung instance's late answers (a note, not a failed
// count), and a hang plan that claims no timeout a command does not take.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lab/balancer_proc.h"
#include "lab/findings.h"
#include "lab/limit.h"
#include "lab/peer.h"
#include "lab/scenario.h"
#include "lab_records.h"

namespace stampede::lab {
namespace {

using testing::make_run;

BalancerSpec command_spec(std::string command) {
  BalancerSpec spec;
  spec.kind = BalancerKind::Command;
  spec.command = std::move(command);
  return spec;
}

// c stopped 1 s into a 4 s run for 2 s; c's /count `late` above its x-instance.
RunRecord peer_hang_run(std::uint64_t failed, std::uint64_t late) {
  RunRecord run = make_run(ScenarioKind::Hang, "rr",
                           {{"a", 0, 12946}, {"b", 0, 12947}, {"c", 0, 2177}}, 7014.0, failed);
  if (failed > 0) run.error_codes = {{"504", failed}};
  run.health_ms = 0;
  run.instances[2].served = 2177 + late;
  run.hang = testing::guide_hang();
  return run;
}

std::vector<Finding> peer_findings(const std::vector<Finding>& all, FindingKind kind) {
  std::vector<Finding> out;
  for (const Finding& f : all)
    if (f.kind == kind) out.push_back(f);
  return out;
}

TEST(LabPeers, NamedByTheirProgramAndGivenOnlyTheTimeoutTheyTake) {
  EXPECT_EQ(peer_of(BalancerSpec{}), Peer::BuiltIn);
  EXPECT_EQ(peer_of(command_spec("sh examples/lab/haproxy.sh {dir} {port}")), Peer::HAProxy);
  EXPECT_EQ(peer_of(command_spec("exec /usr/sbin/NGINX -c {dir}/n.conf")), Peer::Nginx);
  EXPECT_EQ(peer_of(command_spec("node balancer.mjs {port}")), Peer::Other);
  // Both named: the lab cannot tell which one balances.
  EXPECT_EQ(peer_of(command_spec("haproxy-in-front-of-nginx.sh {port}")), Peer::Other);
  BalancerSpec external;
  external.kind = BalancerKind::External;
  external.url = "http://127.0.0.1:9745/";
  EXPECT_EQ(peer_of(external), Peer::Other);
  EXPECT_EQ(peer_name(Peer::HAProxy), "HAProxy");
  // A hang plan claims no timeout a command does not take ({timeout}).
  EXPECT_TRUE(varies_timeout(BalancerSpec{}));
  EXPECT_TRUE(varies_timeout(command_spec("sh haproxy.sh {port} {timeout}")));
  EXPECT_FALSE(varies_timeout(command_spec("sh haproxy.sh {port}")));
  PlanInput input;
  input.scenarios = {ScenarioKind::Hang};
  input.load_strategies = {"rr"};
  input.health_intervals = {std::chrono::milliseconds(0)};
  input.backend_timeout = std::chrono::milliseconds(0);  // the command has no {timeout}
  const auto runs = plan_runs(input);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_FALSE(runs[0].backend_timeout.has_value());
  input.backend_timeout = std::chrono::milliseconds(250);
  EXPECT_EQ(plan_runs(input)[0].backend_timeout, std::chrono::milliseconds(250));
}

TEST(LabPeers, HangAndLimitFindingsNameWhatDecidedItInEachPeer) {
  const std::vector<RunRecord> runs = {peer_hang_run(18, 6)};
  const auto haproxy = peer_findings(read_runs(runs, Peer::HAProxy), FindingKind::HangDamage);
  ASSERT_EQ(haproxy.size(), 1u);
  EXPECT_NE(haproxy[0].text.find("HAProxy: each request waiting on the stopped instance got a "
                                 "504 when `timeout server` (1000 ms) ran out"),
            std::string::npos)
      << haproxy[0].text;
  EXPECT_NE(haproxy[0].text.find("`option redispatch`"), std::string::npos);
  const auto nginx = peer_findings(read_runs(runs, Peer::Nginx), FindingKind::HangDamage);
  ASSERT_EQ(nginx.size(), 1u);
  EXPECT_NE(nginx[0].text.find("`proxy_read_timeout` (1000 ms)"), std::string::npos)
      << nginx[0].text;
  EXPECT_NE(nginx[0].text.find("nginx OSS has no active health checks"), std::string::npos);
  for (Peer quiet : {Peer::BuiltIn, Peer::Other}) {
    const auto text = peer_findings(read_runs(runs, quiet), FindingKind::HangDamage)[0].text;
    EXPECT_EQ(text.find("HAProxy:"), std::string::npos) << text;
    EXPECT_EQ(text.find("nginx:"), std::string::npos) << text;
  }
  {  // The limit summary names each peer's retry settings.
    RunRecord run = make_run(ScenarioKind::Limit, "roundrobin",
                             {{"a", 5, 380}, {"b", 5, 380}, {"c", 5, 161}}, 1300, 40);
    run.retries = 1;
    run.instances[2].max_connections = 2;
    const auto summary = [&](Peer peer) {
      std::vector<Finding> out;
      read_limits({run}, out, peer);
      return out.back().text;
    };
    EXPECT_NE(summary(Peer::HAProxy).find("with `retries` and `option redispatch`"),
              std::string::npos);
    EXPECT_NE(summary(Peer::HAProxy).find("closes the client connection without an answer"),
              std::string::npos);
    EXPECT_NE(
        summary(Peer::Nginx).find("with `max_fails=1` the instance is out for `fail_timeout`"),
        std::string::npos);
    EXPECT_EQ(summary(Peer::BuiltIn).find("HAProxy"), std::string::npos);
  }
}

// nginx re-sent the 12 requests that waited in c to a and b: no failure, c counted 12 more than
// it was credited with. A note says so; it is not a failed check.
TEST(LabPeers, OnlyTheHungInstancesLateAnswersAreANoteNotAFailure) {
  const auto all = read_runs({peer_hang_run(0, 12)}, Peer::Nginx);
  EXPECT_TRUE(all_checks_hold(all));
  EXPECT_TRUE(peer_findings(all, FindingKind::CountDisagrees).empty());
  EXPECT_TRUE(peer_findings(all, FindingKind::SourcesAgree).empty());
  const auto late = peer_findings(all, FindingKind::HangLateAnswers);
  ASSERT_EQ(late.size(), 1u);
  EXPECT_EQ(late[0].scope, "hang/rr/health=off");
  EXPECT_NE(late[0].text.find("c counted 12 more requests than the responses that carried its "
                              "name (2189 by /count, 2177 by x-instance)"),
            std::string::npos)
      << late[0].text;
  EXPECT_NE(late[0].text.find("it ran twice"), std::string::npos);
  EXPECT_EQ(kind_name(FindingKind::HangLateAnswers), "hang-late-answers");

  // With the balancer's 504s the same gap says who answered the clients.
  const auto with_504 =
      peer_findings(read_runs({peer_hang_run(18, 6)}), FindingKind::HangLateAnswers);
  ASSERT_EQ(with_504.size(), 1u);
  EXPECT_NE(with_504[0].text.find("(504 x18)"), std::string::npos) << with_504[0].text;
  {  // Only the hung instance counting more is explained.
    RunRecord other = peer_hang_run(0, 12);
    other.instances[0].served = 12946 + 3;  // a, which was never stopped
    EXPECT_EQ(peer_findings(read_runs({other}), FindingKind::CountDisagrees).size(), 1u);
    RunRecord fewer = peer_hang_run(0, 0);
    fewer.instances[2].served = 2177 - 5;  // c counted fewer than it answered: not a late answer
    const auto fewer_found = read_runs({fewer});
    EXPECT_TRUE(peer_findings(fewer_found, FindingKind::HangLateAnswers).empty());
    EXPECT_EQ(peer_findings(fewer_found, FindingKind::CountDisagrees).size(), 1u);
    RunRecord even = make_run(ScenarioKind::Even, "rr", {{"a", 0, 100}, {"b", 0, 100}}, 100);
    even.instances[1].served = 112;  // the same gap outside a hang is a failed check
    EXPECT_EQ(peer_findings(read_runs({even}), FindingKind::CountDisagrees).size(), 1u);
  }
}

}  // namespace
}  // namespace stampede::lab
