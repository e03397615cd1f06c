// `stampede lab` against its own balancer: what it reports is what the balancer does, every
// process it starts is gone when it exits (also after Ctrl-C, SIGTERM or a closed output pipe, and
// its scratch directory with them), failures name what failed.
#include <signal.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "lab_support.h"
#include "net/socket.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace stampede::lab::testing {
namespace {

using namespace std::chrono_literals;

void expect_all_stopped(const nlohmann::json& doc) {
  const auto ports = instance_ports(doc);
  EXPECT_EQ(ports.size(), 3u);
  for (std::uint16_t port : ports)
    EXPECT_FALSE(listening(port)) << "port " << port;
}

TEST(LabBuiltIn, EvenAndSlowWithRoundRobinAndLeastConnections) {
  const LabRun lab = run_lab({"-t", "1", "--scenarios", "even,slow", "--strategies", "rr,least"});
  ASSERT_EQ(lab.status, 0) << lab.err << lab.out;
  expect_round_robin_within_one_request(lab.doc, "even/rr");
  const auto& even = run_named(lab.doc, "even/rr");

  const auto& slow_rr = run_named(lab.doc, "slow/rr");
  const auto& slow_least = run_named(lab.doc, "slow/least");
  EXPECT_NEAR(shares(slow_rr)["c"], 1.0 / 3, 0.01);
  EXPECT_LT(shares(slow_least)["c"], 0.05);
  EXPECT_LT(slow_rr["rps"].get<double>(), even["rps"].get<double>() / 2);
  EXPECT_EQ(slow_rr["instances"][2]["delay_ms"], 50);
  EXPECT_GT(slow_rr["instances"][2]["direct_p50_ms"].get<double>(), 49.0);

  const auto low = findings_of(lab.doc, "even-share-low-throughput");
  ASSERT_EQ(low.size(), 1u);
  EXPECT_EQ(low[0]["scope"], "slow/rr");
  const auto around = findings_of(lab.doc, "routes-around-slow");
  ASSERT_EQ(around.size(), 1u);
  EXPECT_EQ(around[0]["scope"], "slow/least");
  EXPECT_EQ(findings_of(lab.doc, "sources-agree").size(), 1u);
  EXPECT_TRUE(lab.doc["ok"].get<bool>());
  expect_all_stopped(lab.doc);
}

TEST(LabBuiltIn, StickyKeepsEverySessionOnOneInstance) {
  const LabRun lab = run_lab({"--scenarios", "sticky", "--strategies", "sticky", "--sessions", "4",
                              "--session-requests", "100"});
  ASSERT_EQ(lab.status, 0) << lab.err << lab.out;
  const auto& run = run_named(lab.doc, "sticky/sticky");
  ASSERT_EQ(run["sessions"].size(), 4u);
  for (const auto& s : run["sessions"]) {
    EXPECT_EQ(s["requests"], 100);
    EXPECT_EQ(s["x_instance"].size(), 1u) << s.dump();
    EXPECT_EQ(s["x_backend"], s["x_instance"]);
  }
  EXPECT_EQ(findings_of(lab.doc, "sessions-kept").size(), 1u);
  EXPECT_EQ(findings_of(lab.doc, "sticky-arithmetic").size() +
                findings_of(lab.doc, "sticky-chance").size(),
            1u);
}

TEST(LabBuiltIn, ASessionSplitAcrossInstancesFailsTheCheck) {
  // Round robin as the "sticky" strategy: every session is spread over the instances.
  const LabRun lab = run_lab({"--scenarios", "sticky", "--strategies", "rr", "--sticky-strategy",
                              "rr", "--sessions", "2", "--session-requests", "30"});
  EXPECT_EQ(lab.status, 1) << lab.err;
  ASSERT_TRUE(lab.doc.is_object()) << lab.out;
  EXPECT_FALSE(lab.doc["ok"].get<bool>());
  const auto split = findings_of(lab.doc, "session-split");
  ASSERT_EQ(split.size(), 1u);
  EXPECT_EQ(split[0]["verdict"], "fail");
}

TEST(LabBuiltIn, OutageKillsTheInstanceForReal) {
  const LabRun lab = run_lab({"--scenarios", "outage", "--strategies", "rr", "--health-intervals",
                              "200", "--outage-duration", "1.5s", "--kill-after", "0.5s"});
  ASSERT_EQ(lab.status, 0) << lab.err << lab.out;
  const auto& run = run_named(lab.doc, "outage/rr/health=200ms");
  ASSERT_TRUE(run.contains("outage")) << run.dump();
  EXPECT_EQ(run["outage"]["killed"], "c");
  EXPECT_NEAR(run["outage"]["kill_at_s"].get<double>(), 0.5, 0.2);
  const auto& c = run["instances"][2];
  EXPECT_TRUE(c["killed"].get<bool>());
  EXPECT_TRUE(c["count"].is_null());                    // a dead instance cannot be asked
  EXPECT_GT(c["x_instance"].get<std::uint64_t>(), 0u);  // it served until the kill
  EXPECT_GT(counts(run, "x_instance")["a"], c["x_instance"].get<std::uint64_t>());
  EXPECT_EQ(findings_of(lab.doc, "outage-detector").size(), 1u);
  expect_all_stopped(lab.doc);
}

TEST(LabBuiltIn, TextAndHtmlReports) {
  const stampede::testing::TempDir temp_dir;
  const std::string& dir = temp_dir.path();
  const std::string html = dir + "/lab.html";
  auto r = stampede::testing::run_command({STAMPEDE_BINARY, "lab", "-q", "-t", "0.5", "--scenarios",
                                           "even", "--strategies", "rr", "--html", html},
                                          180s);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("even — the pool as given"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("result: every check holds (1 runs"), std::string::npos) << r.out;
  std::ifstream in(html);
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(page.find("stampede lab"), std::string::npos);
  EXPECT_NE(page.find("even share"), std::string::npos);
}

// Stops a running lab with `sig`: it says so, and every process it started is gone when it
// exits, and so is its scratch directory (looked for in a TMPDIR of the test's own).
void expect_stopped_by(int sig) {
  const stampede::testing::FreshTmpdir tmp;
  stampede::testing::ChildProcess lab({STAMPEDE_BINARY, "lab", "-t", "20"});
  // The progress line that names the instances, once they run (a bounded wait for an event).
  std::smatch m;
  std::string err;
  const std::regex line(
      "instances on 127\\.0\\.0\\.1:(\\d+), 127\\.0\\.0\\.1:(\\d+), "
      "127\\.0\\.0\\.1:(\\d+)");
  for (int i = 0; i < 1000 && !std::regex_search(err, m, line); ++i) {
    std::this_thread::sleep_for(10ms);
    err = lab.stderr_text();
  }
  ASSERT_TRUE(std::regex_search(err, m, line)) << err;
  std::vector<std::uint16_t> ports;
  for (int i = 1; i <= 3; ++i)
    ports.push_back(static_cast<std::uint16_t>(std::stoi(m[i])));
  for (std::uint16_t p : ports)
    EXPECT_TRUE(listening(p));
  EXPECT_EQ(tmp.entries("stampede-lab-").size(), 1u) << "the scratch directory, while it runs";
  ASSERT_TRUE(lab.signal(sig));
  EXPECT_EQ(lab.wait(30000ms), 1);
  EXPECT_NE(lab.stderr_text().find("interrupted; every process it started is stopped"),
            std::string::npos)
      << lab.stderr_text();
  for (std::uint16_t p : ports)
    EXPECT_FALSE(listening(p)) << "port " << p;
  const std::vector<std::string> left = tmp.entries("stampede-lab-");
  EXPECT_TRUE(left.empty()) << (left.empty() ? "" : left.front());
}

TEST(LabBuiltIn, CtrlCStopsEveryProcessItStarted) {
  expect_stopped_by(SIGINT);
}

TEST(LabBuiltIn, SigtermStopsEveryProcessItStartedToo) {
  expect_stopped_by(SIGTERM);
}

// A reader of its output that goes away (`stampede lab 2>&1 | head -c 1`): the lab is not
// killed by SIGPIPE at its next line; it ends as usual and removes its scratch directory.
TEST(LabBuiltIn, AReaderThatGoesAwayLeavesNoScratchDirectory) {
  const stampede::testing::FreshTmpdir tmp;
  const auto r = stampede::testing::run_command(
      {"/bin/bash", "-c",
       "\"$0\" lab -t 0.5 --scenarios even --strategies rr 2>&1 | head -c 1 >/dev/null; "
       "exit ${PIPESTATUS[0]}",
       STAMPEDE_BINARY},
      180s);
  EXPECT_NE(r.status, 128 + SIGPIPE) << "killed by SIGPIPE";
  EXPECT_TRUE(r.status == 0 || r.status == 1) << r.status << r.err;
  const std::vector<std::string> left = tmp.entries("stampede-lab-");
  EXPECT_TRUE(left.empty()) << (left.empty() ? "" : left.front());
}

TEST(LabBuiltIn, StartFailuresNameWhatFailed) {
  auto taken = net::listen_tcp(*net::resolve("127.0.0.1", 0));
  ASSERT_TRUE(taken.ok());
  const auto port = std::to_string(net::local_address(taken->get())->port());

  LabRun lab = run_lab({"--instance", "a=127.0.0.1:" + port, "--instance", "b=127.0.0.1:0",
                        "--scenarios", "even", "--strategies", "rr"});
  EXPECT_EQ(lab.status, 1);
  EXPECT_NE(lab.err.find("instance a exited (exit status 1) before it was ready"),
            std::string::npos)
      << lab.err;
  EXPECT_NE(lab.err.find("in use"), std::string::npos) << lab.err;

  // A listener that never answers stands for a balancer that accepts and says nothing.
  lab = run_lab({"--balancer-url", "http://127.0.0.1:" + port + "/", "--scenarios", "even"});
  EXPECT_EQ(lab.status, 1);
  EXPECT_NE(lab.err.find("the balancer at http://127.0.0.1:" + port +
                         "/ answers nothing: no response within"),
            std::string::npos)
      << lab.err;

  lab = run_lab({"--balancer-cmd", "echo boom >&2; exit 3 # {port}", "--scenarios", "even",
                 "--strategies", "rr"});
  EXPECT_EQ(lab.status, 1);
  EXPECT_NE(lab.err.find("the balancer command (rr) exited (exit status 3) before it was ready: "
                         "boom"),
            std::string::npos)
      << lab.err;
}

TEST(LabBuiltIn, BadUsageExitsTwo) {
  const LabRun lab = run_lab({"--scenarios", "fast"});
  EXPECT_EQ(lab.status, 2);
  EXPECT_EQ(lab.err.rfind("stampede: --scenarios: unknown scenario 'fast'", 0), 0u) << lab.err;
}

}  // namespace
}  // namespace stampede::lab::testing
