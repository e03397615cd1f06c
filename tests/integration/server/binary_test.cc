// The `stampede serve` command as a user runs it: ready file, signals, totals, exit codes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <fstream>
#include <sstream>
#include <string>

#include "fixture.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace stampede::server::testing {
namespace {

using namespace stampede::testing;  // the child processes, temporary folders and waits
using namespace std::chrono_literals;

std::size_t count_lines(const std::string& text) {
  std::size_t n = 0;
  for (char c : text)
    n += c == '\n' ? 1 : 0;
  return n;
}

struct Serve {
  const TempDir temp_dir;
  const std::string dir = temp_dir.path();
  std::string ready = dir + "/port";
};

TEST(ServeBinary, ReadyFileThenSigtermPrintsTotalsAndExitsZero) {
  Serve s;
  ChildProcess child({STAMPEDE_BINARY, "serve", "--port", "0", "--ready-file", s.ready, "--cores",
                      "2", "--id", "a", "--quiet"});
  const int port = wait_for_port_file(s.ready, 10s);
  ASSERT_GT(port, 0) << child.stderr_text();
  for (int i = 0; i < 5; ++i) {
    RawClient client(static_cast<std::uint16_t>(port));
    auto reply = client.exchange(get("/"));
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->instance, "a");
  }
  RawClient client(static_cast<std::uint16_t>(port));
  auto count = client.exchange(get("/count"));
  ASSERT_TRUE(count);
  EXPECT_EQ(count->body, R"({"id":"a","served":5,"delay":0})");
  ASSERT_TRUE(child.signal(SIGTERM));
  EXPECT_EQ(child.wait(10s), 0) << child.stderr_text();
  EXPECT_NE(child.stdout_text().find("Total requests: 5,"), std::string::npos)
      << child.stdout_text();
  EXPECT_EQ(child.stderr_text(), "");  // --quiet
}

TEST(ServeBinary, SigintAlsoStopsCleanly) {
  Serve s;
  ChildProcess child({STAMPEDE_BINARY, "serve", "-p", "0", "--ready-file", s.ready, "-c", "1"});
  ASSERT_GT(wait_for_port_file(s.ready, 10s), 0) << child.stderr_text();
  ASSERT_TRUE(child.signal(SIGINT));
  EXPECT_EQ(child.wait(10s), 0);
  EXPECT_NE(child.stdout_text().find("Total requests: 0,"), std::string::npos);
  EXPECT_NE(child.stderr_text().find("Listening on http://127.0.0.1:"), std::string::npos);
}

TEST(ServeBinary, PrintsAPerSecondLineUnlessQuiet) {
  Serve s;
  ChildProcess child({STAMPEDE_BINARY, "serve", "0", "--ready-file", s.ready, "-c", "1"});
  const int port = wait_for_port_file(s.ready, 10s);
  ASSERT_GT(port, 0);
  RawClient client(static_cast<std::uint16_t>(port));
  ASSERT_TRUE(client.exchange(get("/")));
  // The line comes once a second; wait for it (bounded) rather than for a fixed time.
  ASSERT_TRUE(eventually(
      [&] { return child.stderr_text().find("requests per second: ") != std::string::npos; }, 10s));
  EXPECT_NE(child.stderr_text().find("mean service time: "), std::string::npos);
  child.signal(SIGTERM);
  EXPECT_EQ(child.wait(10s), 0);
}

TEST(ServeBinary, StoppedWithSigstopStallsAndResumesWithSigcont) {
  Serve s;
  ChildProcess child({STAMPEDE_BINARY, "serve", "0", "--ready-file", s.ready, "-c", "1", "-q"});
  const int port = wait_for_port_file(s.ready, 10s);
  ASSERT_GT(port, 0);
  ASSERT_TRUE(child.signal(SIGSTOP));
  // The group stop completes asynchronously: wait until every thread has stopped.
  int status = 0;
  ASSERT_EQ(waitpid(child.pid(), &status, WUNTRACED), child.pid());
  ASSERT_TRUE(WIFSTOPPED(status));
  RawClient stalled(static_cast<std::uint16_t>(port), 300ms);
  ASSERT_TRUE(stalled.connected());  // the kernel still completes the handshake
  ASSERT_TRUE(stalled.send(get("/")));
  EXPECT_FALSE(stalled.read_reply());  // no answer while stopped (300 ms receive timeout)
  ASSERT_TRUE(child.signal(SIGCONT));
  RawClient resumed(static_cast<std::uint16_t>(port));
  auto reply = resumed.exchange(get("/"));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  child.signal(SIGTERM);
  EXPECT_EQ(child.wait(10s), 0);
}

TEST(ServeBinary, BadInputExitsTwoWithOneLine) {
  const std::vector<std::vector<std::string>> bad = {
      {"--bogus"}, {"-P", "150"}, {"-e", "abc"}, {"-f", "/nonexistent/body"}, {"-p", "99999"}};
  for (auto args : bad) {
    args.insert(args.begin(), {STAMPEDE_BINARY, "serve"});
    auto r = run_command(args, 10s);
    EXPECT_EQ(r.status, 2) << args[2];
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("stampede: ", 0), 0u) << r.err;
  }
}

TEST(ServeBinary, PortInUseExitsOne) {
  auto server = start_server();
  ASSERT_TRUE(server);
  const std::string port = std::to_string(server->port());
  for (const char* cores : {"1", "2"}) {
    auto r = run_command({STAMPEDE_BINARY, "serve", "-p", port, "-c", cores, "-q"}, 10s);
    EXPECT_EQ(r.status, 1) << cores;
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("in use"), std::string::npos) << r.err;
  }
}

TEST(ServeBinary, ReadyFileInAMissingDirectoryIsAnError) {
  auto r = run_command(
      {STAMPEDE_BINARY, "serve", "0", "-q", "--ready-file", "/nonexistent/dir/port"}, 10s);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--ready-file"), std::string::npos) << r.err;
}

TEST(ServeBinary, HelpExitsZero) {
  auto r = run_command({STAMPEDE_BINARY, "serve", "--help"}, 10s);
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("--delay"), std::string::npos);
}

}  // namespace
}  // namespace stampede::server::testing
