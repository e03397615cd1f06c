// Hostile input to the binary, as a user or a file gives it: each case is one exact line on
// stderr, exit status 2, nothing on stdout, and nothing sent (the target is a listener that
// never accepts, so any connection the run made is still in its queue afterwards).
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/generator_refusal.h"
#include "support/in_process.h"
#include "support/loopback.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace stampede::testing {
namespace {

using std::chrono::milliseconds;

// A loopback port that listens and never accepts: connected() says whether anyone connected.
class SilentListener {
 public:
  std::string url(const std::string& scheme = "http") const {
    return scheme + "://127.0.0.1:" + std::to_string(listener_.port) + "/";
  }
  bool connected() const {
    const net::Fd conn(::accept4(listener_.fd.get(), nullptr, nullptr, SOCK_CLOEXEC));  // no wait
    return conn.valid();
  }

 private:
  LoopbackListener listener_ = listen_loopback(64, SOCK_NONBLOCK);
};

// The working folder of a case (where .loadtestrc is read), removed by the destructor.
class CaseDir : public TempDir {
 public:
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(file(name), std::ios::binary) << text;
  }
};

// Runs the binary with `args` in `dir` (bounded: a hang is killed and fails the case).
RunResult stampede_in(const std::string& dir, std::vector<std::string> args) {
  args.insert(args.begin(), {"/usr/bin/env", "-C", dir, STAMPEDE_BINARY});
  return run_command(std::move(args), milliseconds(20000));
}

std::string nested_arrays(std::size_t levels) {
  return std::string(levels, '[') + std::string(levels, ']');
}

struct HostileCase {
  std::vector<std::string> args;
  std::string line;  // stderr, without "stampede: " and the newline
};

void expect_refused(const CaseDir& dir, const SilentListener& target, const HostileCase& c) {
  const RunResult r = stampede_in(dir.path(), c.args);
  const std::string shown = ::testing::PrintToString(c.args);
  EXPECT_EQ(r.status, 2) << shown;
  EXPECT_EQ(r.err, "stampede: " + c.line + "\n") << shown;
  EXPECT_EQ(r.out, "") << shown;
  EXPECT_FALSE(target.connected()) << shown;
}

// The same refusal checked in this process (support/generator_refusal.h), for sweeps: the
// generator's parse, with `dir` holding .loadtestrc, refuses c.args with exactly c.line.
void expect_parse_refused(const CaseDir& dir, const HostileCase& c) {
  const std::string shown = ::testing::PrintToString(c.args);
  const std::optional<std::string> line = generator_refusal(c.args, dir.path());
  ASSERT_TRUE(line.has_value()) << "accepted: " << shown;
  EXPECT_EQ(*line, c.line) << shown;
}

// The sweep of a table: the first `in_process` cases (all of them by default) refused by the
// parse in this process, and the cases at the indices `through_binary` by the binary too.
void expect_cases_refused(const CaseDir& dir, const SilentListener& target,
                          const std::vector<HostileCase>& cases,
                          std::initializer_list<std::size_t> through_binary,
                          std::size_t in_process = SIZE_MAX) {
  for (std::size_t i = 0; i < cases.size() && i < in_process; ++i)
    expect_parse_refused(dir, cases[i]);
  for (const std::size_t i : through_binary)
    expect_refused(dir, target, cases[i]);
}

// Files that are not what a file option expects: too deep, a directory, a FIFO with no writer,
// an endless device, too large. None may crash, hang, eat memory or throw out of main.
TEST(HostileInput, FilesForEverySubcommand) {
  SilentListener target;
  CaseDir dir;
  const std::string folder = dir.file("folder");
  const std::string fifo = dir.file("fifo");
  const std::string big = dir.file("big");
  std::filesystem::create_directory(folder);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  dir.write("big", "");
  std::filesystem::resize_file(big, (std::size_t{64} << 20) + 1);  // sparse: costs no disk
  dir.write("deep.json", "{\"backend\": " + nested_arrays(100000) + "}");
  const std::string url = target.url();
  const std::vector<HostileCase> cases = {
      {{url, "-p", folder}, "-p: cannot read body file '" + folder + "': is a directory"},
      {{url, "-u", fifo}, "-u: cannot read body file '" + fifo + "': not a regular file"},
      {{url, "-a", "/dev/zero"}, "-a: cannot read body file '/dev/zero': not a regular file"},
      {{url, "-p", big}, "-p: cannot read body file '" + big + "': larger than 64 MiB"},
      {{target.url("https"), "--cert", folder, "--key", folder},
       "cannot read certificate file '" + folder + "': is a directory"},
      {{"serve", "--port", "0", "--tls-cert", folder, "--tls-key", folder},
       "--tls-cert/--tls-key: cannot read certificate file '" + folder + "': is a directory"},
      {{"balance", "--backend", "127.0.0.1:1", "--config", folder},
       "cannot read config file '" + folder + "': is a directory"},
      {{"balance", "--config", "/dev/zero"},
       "cannot read config file '/dev/zero': not a regular file"},
      {{"balance", "--config", dir.file("deep.json")}, "config: JSON nested deeper than 64 levels"},
  };
  for (const HostileCase& c : cases)
    expect_refused(dir, target, c);
}

// .loadtestrc in the working folder: the same, read before anything is sent.
TEST(HostileInput, LoadtestrcFiles) {
  SilentListener target;
  const std::string url = target.url();
  struct RcCase {
    std::optional<std::string> text;  // nullopt: made a directory or a FIFO below
    bool fifo;
    std::string reason;  // after ".loadtestrc" or "cannot read '…/.loadtestrc'"
  };
  const RcCase cases[] = {
      {"{\"body\": " + nested_arrays(100000) + "}", false,
       ".loadtestrc: JSON nested deeper than 64 levels"},
      {"{\"headers\": {\"x\": " + nested_arrays(65) + "}}", false,
       ".loadtestrc: JSON nested deeper than 64 levels"},
      {std::string((std::size_t{1} << 20) + 1, ' '), false, "larger than 1 MiB"},
      {std::nullopt, false, "is a directory"},
      {std::nullopt, true, "not a regular file"},
  };
  for (const RcCase& c : cases) {
    CaseDir dir;
    const std::string rc = dir.file(".loadtestrc");
    if (c.text) {
      dir.write(".loadtestrc", *c.text);
    } else if (c.fifo) {
      ASSERT_EQ(::mkfifo(rc.c_str(), 0600), 0);
    } else {
      std::filesystem::create_directory(rc);
    }
    const bool named = c.reason.starts_with(".loadtestrc");
    expect_refused(dir, target,
                   {{url, "-n", "1"}, named ? c.reason : "cannot read '" + rc + "': " + c.reason});
  }
}

// Option values outside what an option allows: 0 where leaving the option out means "no limit",
// what overflows, what is not a number. The line says what is allowed.
TEST(HostileInput, GeneratorNumbers) {
  SilentListener target;
  CaseDir dir;
  const std::string url = target.url();
  const std::string leave_out = " (leave it out for no limit)";
  const std::string rps =
      "--rps: expected a positive number of requests per second from 0.001 "
      "to 10000000, got '";
  const std::vector<HostileCase> cases = {
      {{url, "-n", "0"}, "-n: must be at least 1, got '0'" + leave_out},
      {{url, "-t", "0"}, "-t: must be more than 0, got '0'" + leave_out},
      {{url, "-t", "0.0000000001"}, "-t: must be more than 0, got '0.0000000001'" + leave_out},
      {{url, "-d", "0"}, "--timeout: must be more than 0, got '0'" + leave_out},
      {{url, "-t", "9000000000"}, "-t: too long: '9000000000' (at most 8760h)"},
      {{url, "-d", "9000000000000"}, "--timeout: too long: '9000000000000' (at most 8760h)"},
      {{url, "--rps", "5", "--ramp", "8761h"}, "--ramp: too long: '8761h' (at most 8760h)"},
      {{url, "-n", "99999999999999999999"}, "-n: number too large: '99999999999999999999'"},
      {{url, "-n", "inf"}, "-n: not a number: 'inf'"},
      {{url, "-n", "nan"}, "-n: not a number: 'nan'"},
      {{url, "-n", "10x"}, "-n: not a number: '10x'"},
      {{url, "-c", "1e12"}, "-c: not a number: '1e12'"},
      {{url, "-c", "1000001"}, "-c: too large: '1000001' (at most 1000000)"},
      {{url, "-c", "-1"}, "-c: must not be negative: '-1'"},
      {{url, "--cores", "2000"}, "--cores: too large: '2000' (at most 1024)"},
      {{url, "--cores", "0"}, "--cores: must be at least 1, got '0'"},
      {{url, "-t", "inf"}, "-t: not a duration: 'inf'"},
      {{url, "-t", "-1"}, "-t: not a duration: '-1'"},
      {{url, "--rps", "1e12"}, rps + "1e12'"},
      {{url, "--rps", "100000000"}, rps + "100000000'"},
      {{url, "--rps", "0.0001"}, rps + "0.0001'"},
      {{url, "--rps", "0"}, rps + "0'"},
      {{url, "--rps", "nan"}, rps + "nan'"},
      {{url, "--rps", "inf"}, rps + "inf'"},
      {{url, "--rps", "5x"}, rps + "5x'"},
      {{url, "--max-p99", "nan"}, "--max-p99: expected a number of milliseconds, got 'nan'"},
      {{url, "--max-p99", "-1"}, "--max-p99: expected a number of milliseconds, got '-1'"},
      {{url, "--max-error-rate", "101"},
       "--max-error-rate: expected a percentage from 0 to 100, got '101'"},
      {{url, "--min-rps", "inf"}, "--min-rps: expected a number of requests per second, got 'inf'"},
  };
  // Through the binary, one value of each kind: zero, too long, negative, not a number.
  expect_cases_refused(dir, target, cases, {0u, 4u, 13u, 22u});
}

// --pipeline: its bounds, and the combinations that cannot keep one request per answer in order
// (no -k: a connection per request; WebSocket; Lua scripts, which see one request at a time).
TEST(HostileInput, PipelineDepthAndCombinations) {
  SilentListener target;
  CaseDir dir;
  const std::string url = target.url();
  const std::vector<HostileCase> cases = {
      {{url, "-k", "--pipeline", "0"}, "--pipeline: must be at least 1, got '0'"},
      {{url, "-k", "--pipeline", "-3"}, "--pipeline: must not be negative: '-3'"},
      {{url, "-k", "--pipeline", "257"}, "--pipeline: too large: '257' (at most 256)"},
      {{url, "-k", "--pipeline", "99999999999999999999"},
       "--pipeline: number too large: '99999999999999999999'"},
      {{url, "-k", "--pipeline", "2x"}, "--pipeline: not a number: '2x'"},
      {{url, "--pipeline", "4"},
       "--pipeline needs -k: without it each request has a connection of its own"},
      {{target.url("ws"), "-k", "--pipeline", "4"},
       "--pipeline does not apply to WebSocket (ws://, wss://)"},
      {{url, "-k", "--pipeline", "4", "-R", "request.lua"},
       "--pipeline does not work with Lua scripts or request callbacks (they see one request at "
       "a time on a connection)"},
  };
  // Through the binary: a bound, and a combination.
  expect_cases_refused(dir, target, cases, {2u, 5u});
}

// CR, LF and other control bytes: refused where they would reach the request's head, and
// escaped in the error line of every subcommand (never written raw to the terminal).
TEST(HostileInput, ControlBytesAreRefusedAndEscaped) {
  SilentListener target;
  CaseDir dir;
  const std::string url = target.url();
  const std::vector<HostileCase> cases = {
      {{url, "-n", "1\r\n2"}, "-n: not a number: '1\\r\\n2'"},
      {{url, "--bogus\r\nx"}, "unknown option '--bogus\\r\\nx'"},
      {{url, "-m", "GE\r\nT"}, "-m: invalid method 'GE\\r\\nT'"},
      {{url, "-H", "a: b\r\nc: d"}, "-H: malformed header value in 'a: b\\r\\nc: d'"},
      {{url, "-H", "a\r\nb: c"}, "-H: malformed header name in 'a\\r\\nb: c'"},
      {{url, "-C", "a=b\r\nc: d"}, "-C: malformed cookie 'a=b\\r\\nc: d' (expected name=value)"},
      {{url, "-T", "a\r\nb: c"}, "-T: invalid content type"},
      {{url, "--count-header", "a\x1b[2J"}, "--count-header: invalid header name 'a\\x1b[2J'"},
      {{url + "a\r\nb"},
       "URL '" + url + "a\\r\\nb' contains a space or control character at offset " +
           std::to_string(url.size() + 1)},
      {{"serve", "--port", "1\r\n"}, "port: expected a whole number up to 65535, got '1\\r\\n'"},
      {{"balance", "--backend", "127.0.0.1:1", "--strategy", "x\r\n"},
       "unknown strategy 'x\\r\\n' (expected rr, least, p2c, ewma, sticky or random)"},
      {{"lab", "--bogus\r"}, "The following argument was not expected: --bogus\\r"},
  };
  // The generator's (the first nine) in this process; through the binary, one of them and the
  // other subcommands'.
  expect_cases_refused(dir, target, cases, {3u, 9u, 10u, 11u}, /*in_process=*/9);
}

// The same rules for values from .loadtestrc.
TEST(HostileInput, LoadtestrcValues) {
  SilentListener target;
  const std::string url = target.url();
  const std::pair<std::string, std::string> cases[] = {
      {R"({"maxRequests": 0})",
       ".loadtestrc maxRequests: must be at least 1, got '0' (leave it out for no limit)"},
      {R"({"maxSeconds": "0s"})",
       ".loadtestrc maxSeconds: must be more than 0, got '0s' (leave it out for no limit)"},
      {R"({"requestsPerSecond": 1e12})",
       ".loadtestrc requestsPerSecond: expected a positive number of requests per second from "
       "0.001 to 10000000, got '1000000000000.0'"},
      {R"({"headers": {"a": "b\u0000c"}})",
       ".loadtestrc headers: malformed header value in 'a:b\\x00c'"},
      {R"({"method": "GET / HTTP/1.1\r\nx:"})",
       ".loadtestrc method: invalid method 'GET / HTTP/1.1\\r\\nx:'"},
  };
  for (const auto& [rc, line] : cases) {
    CaseDir dir;
    dir.write(".loadtestrc", rc);
    expect_refused(dir, target, {{url}, line});
  }
}

// -c more connections than the open-file limit allows, even raised to its hard limit: refused
// before anything is sent (they would have failed with EMFILE, counted against the server).
TEST(FileLimit, TooManyConnectionsForTheHardLimitAreRefused) {
  SilentListener target;
  const RunResult r = run_command({"/usr/bin/prlimit", "--nofile=64:64", STAMPEDE_BINARY,
                                   target.url(), "-c", "100", "-n", "100", "-k"},
                                  milliseconds(20000));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, ::testing::MatchesRegex(
                         "stampede: -c 100 needs about [0-9]+ open files, more than this process "
                         "may open \\(64; hard limit 64\\): lower -c or raise the limit with "
                         "ulimit -n\n"));
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(target.connected());
}

// A soft limit below -c is raised to the hard limit: every connection opens, no error.
TEST(FileLimit, TheSoftLimitIsRaisedToTheHardOne) {
  auto server = start_server();
  ASSERT_TRUE(server);
  const std::string url = "http://127.0.0.1:" + std::to_string(server->port()) + "/";
  const RunResult r =
      run_command({"/usr/bin/prlimit", "--nofile=64:4096", STAMPEDE_BINARY, url, "-c", "100", "-n",
                   "300", "-k", "--cores", "1", "--quiet", "--json"},
                  milliseconds(20000));
  const auto totals = server->stop();
  EXPECT_EQ(r.status, 0) << r.err;
  const auto report = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << r.out;
  EXPECT_EQ(report["totalRequests"], 300);
  EXPECT_EQ(report["totalErrors"], 0);
  EXPECT_EQ(totals.requests, 300u);
  EXPECT_EQ(totals.connections, 100u);
}

}  // namespace
}  // namespace stampede::testing
