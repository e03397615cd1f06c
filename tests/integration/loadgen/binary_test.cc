// The stampede binary as a user runs it: exit codes and messages for bad input, the text and
// JSON reports, Ctrl-C.
#include <signal.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/generator_refusal.h"
#include "support/process.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace stampede::testing {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::size_t lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Each bad input: exit status 2, one line on stderr naming the problem, nothing on stdout.
TEST(Binary, BadInputExitsWithTwoAndOneLine) {
  const std::string url = "http://127.0.0.1:9/";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{}, "missing URL"},
      {{"-n", "10"}, "missing URL"},
      {{"not a url"}, "URL"},
      {{"http://"}, "host"},
      {{"https://127.0.0.1/", "-s", "TLSv9_method"}, "unknown secure protocol 'TLSv9_method'"},
      {{"https://127.0.0.1/", "--cert", "/nonexistent/c.pem", "--key", "/nonexistent/k.pem"},
       "cannot read certificate file '/nonexistent/c.pem'"},
      {{"https://127.0.0.1/", "--cert", "/nonexistent/c.pem"}, "--cert and --key go together"},
      {{url, "--proxy", "https://127.0.0.1:1/"}, "--proxy: only http:// proxies"},
      {{url, "--proxy", "http://127.0.0.1:1/path"}, "--proxy: expected http://host:port"},
      {{"gopher://127.0.0.1/"}, "unsupported scheme 'gopher'"},
      {{"wss://127.0.0.1/", "-s", "TLSv9_method"}, "unknown secure protocol 'TLSv9_method'"},
      {{url, "--bogus"}, "unknown option '--bogus'"},
      {{url, "-n", "ten"}, "-n: not a number"},
      {{url, "-n", "-5"}, "-n: must not be negative"},
      {{url, "-c", "0"}, "-c: must be at least 1"},
      {{url, "-t", "-1"}, "-t: not a duration"},
      {{url, "-d", "soon"}, "--timeout: not a duration"},
      {{url, "--cores", "x"}, "--cores: not a number"},
      {{url, "-p", "/nonexistent/body.json"}, "cannot read body file"},
      {{url, "-H", "no-colon"}, "malformed header"},
      {{url, "-C", "no-equals"}, "malformed cookie"},
      {{url, url}, "unexpected argument"},
      {{url, "-n"}, "option -n needs a value"},
  };
  // In this process (support/generator_refusal.h): the parse the binary's main runs first
  // refuses each, with a line that says why.
  const TempDir rc_dir;  // no .loadtestrc
  for (const auto& [args, message] : cases) {
    const std::string shown = ::testing::PrintToString(args);
    const std::optional<std::string> line = generator_refusal(args, rc_dir.path());
    ASSERT_TRUE(line.has_value()) << "accepted: " << shown;
    EXPECT_THAT(*line, HasSubstr(message)) << shown;
  }
  // Through the binary, a few of each kind: no URL, a bad URL, a bad option, a bad value, a
  // file that cannot be read, a missing value.
  for (const std::size_t i : {0u, 3u, 11u, 13u, 18u, 22u}) {
    const auto& [args, message] = cases[i];
    const RunResult r = run_stampede(args);
    const std::string shown = ::testing::PrintToString(args);
    EXPECT_EQ(r.status, 2) << shown;
    EXPECT_THAT(r.err, StartsWith("stampede: ")) << shown;
    EXPECT_THAT(r.err, HasSubstr(message)) << shown;
    EXPECT_EQ(lines(r.err), 1u) << shown << r.err;
    EXPECT_EQ(r.out, "") << shown;
  }
}

TEST(Binary, InvalidLoadtestrcInTheWorkingFolder) {
  const TempDir temp_dir;
  const std::string& dir = temp_dir.path();
  std::ofstream(dir + "/.loadtestrc") << "{\"concurrency\": \"lots\"}";
  const RunResult r = run_command(
      {"/bin/sh", "-c", "cd '" + dir + "' && exec '" STAMPEDE_BINARY "' http://127.0.0.1:9/"},
      milliseconds(20000));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "stampede: .loadtestrc concurrency: not a number: 'lots'\n");
}

TEST(Binary, VersionAndHelp) {
  const RunResult v = run_stampede({"-V"});
  EXPECT_EQ(v.status, 0);
  EXPECT_THAT(v.out, ::testing::MatchesRegex("stampede [0-9]+\\.[0-9]+\\.[0-9]+\n"));
  const RunResult h = run_stampede({"--help"});
  EXPECT_EQ(h.status, 0);
  EXPECT_THAT(h.out, HasSubstr("--keepalive"));
  EXPECT_THAT(h.out, HasSubstr("--json"));
}

TEST(Binary, TextReport) {
  ScriptedServer server(answer_ok());
  const RunResult r = run_stampede({"-n", "300", "-c", "3", "-k", server.url(), "--cores", "1"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(server.requests(), 300u);
  EXPECT_THAT(r.out, HasSubstr("\nTarget URL:          " + server.url() + "\n"));
  EXPECT_THAT(r.out, HasSubstr("\nMax requests:        300\n"));
  EXPECT_THAT(r.out, HasSubstr("\nConcurrent clients:  3\n"));
  EXPECT_THAT(r.out, HasSubstr("\nAgent:               keepalive\n"));
  EXPECT_THAT(r.out, HasSubstr("\nCompleted requests:  300\n"));
  EXPECT_THAT(r.out, HasSubstr("\nTotal errors:        0\n"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("\n99.9%      [0-9]+\\.[0-9]{3} ms\n"));
  EXPECT_THAT(r.out, HasSubstr("(longest request)\n"));
}

TEST(Binary, JsonReport) {
  ScriptedServer server(answer_ok());
  const RunResult r = run_stampede({server.url(), "--json", "-n", "120", "-c", "4", "-k"});
  EXPECT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["url"], server.url());
  EXPECT_EQ(j["maxRequests"], 120);
  EXPECT_EQ(j["concurrency"], 4);
  EXPECT_EQ(j["agent"], "keepalive");
  EXPECT_EQ(j["totalRequests"], 120);
  EXPECT_EQ(j["totalErrors"], 0);
  EXPECT_EQ(j["statusCodes"]["200"], 120);
  EXPECT_TRUE(j["percentiles"].contains("99.9"));
  EXPECT_TRUE(j["errorCodes"].is_object());
  EXPECT_GT(j["effectiveRps"].get<double>(), 0);
}

TEST(Binary, RefusedTargetEndsOnTimeWithExitZero) {
  RefusedPort refused;
  const auto begin = std::chrono::steady_clock::now();
  const RunResult r =
      run_stampede({"http://127.0.0.1:" + std::to_string(refused.port()) + "/", "-t", "1"});
  const auto wall = std::chrono::steady_clock::now() - begin;
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_LT(wall, std::chrono::seconds(3));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("\n  ECONNREFUSED:   [0-9]+ errors\n"));
}

TEST(Binary, CtrlCStopsAndStillReports) {
  ScriptedServer server(answer_ok());
  ChildProcess child({STAMPEDE_BINARY, server.url(), "-k", "-c", "2", "-t", "60"});
  // Bounded wait for the run to be under way (a counter, not a sleep to order events).
  eventually([&] { return server.requests() >= 100; }, milliseconds(10000), milliseconds(5));
  ASSERT_GE(server.requests(), 100u);
  ASSERT_TRUE(child.signal(SIGINT));
  EXPECT_EQ(child.wait(milliseconds(5000)), 0);
  EXPECT_THAT(child.stdout_text(),
              ::testing::ContainsRegex("\nCompleted requests:  [1-9][0-9]*\n"));
  EXPECT_THAT(child.stdout_text(), HasSubstr("\nMax time (s):        60\n"));
}

}  // namespace
}  // namespace stampede::testing
