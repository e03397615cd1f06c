// --log on the command line: what it refuses (one line, exit 2, before anything is created or
// sent), --log - (stdout is the log alone, the report goes to stderr), and a disk that fills
// during the run (the report still prints, then one line, exit 1).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/generator_refusal.h"
#include "support/in_process.h"
#include "support/process.h"
#include "support/refusal.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace stampede::testing {
namespace {

struct LogRefusal {
  std::vector<std::string> args;  // after the URL
  std::string line;
};

TEST(RequestLogCli, RefusesWhatItCannotLogBeforeCreatingTheFile) {
  TempDir dir;
  const std::string csv = dir.file("run.csv");
  const std::string url = "http://127.0.0.1:1/";
  const std::vector<LogRefusal> cases = {
      {{"--log", dir.file("run.txt")},
       "--log '" + dir.file("run.txt") +
           "': the name must end in .csv, .ndjson or .jsonl (the format), or be - for NDJSON on "
           "stdout"},
      {{"--log", ""}, "--log: empty file name"},
      {{"--log", dir.file("none/run.csv")},
       "--log '" + dir.file("none/run.csv") + "': cannot create it: No such file or directory"},
      {{"--log", csv, "--sweep-connections", "1,2"},
       "--log records one run: not with --sweep-connections or --find-max"},
      {{"--log", csv, "--find-max", "--max-p99", "10"},
       "--log records one run: not with --sweep-connections or --find-max"},
      {{"--log", csv, "--repeat", "3"},
       "--log records one run: not with --repeat (one log file per run)"},
      {{"--log", "-", "--save", "-"},
       "--log - and --save - both write to stdout: give one of them a file name"},
  };
  for (const LogRefusal& c : cases) {
    std::vector<std::string> args{url};
    args.insert(args.end(), c.args.begin(), c.args.end());
    EXPECT_EQ(generator_refusal(args, dir.path()), c.line) << shown_args(args);
  }
  EXPECT_FALSE(std::filesystem::exists(csv)) << "refused before it was created";
  // End to end once: one line, exit 2.
  EXPECT_TRUE(refused({url, "-n", "1", "--log", dir.file("run.log")}, "--log"));
}

// --log -: stdout carries the log's NDJSON lines and nothing else; the report is on stderr.
TEST(RequestLogCli, LogOnStdoutMovesTheReportToStderr) {
  auto s = start_server();
  ASSERT_TRUE(s);
  const std::string url = "http://127.0.0.1:" + std::to_string(s->port()) + "/";
  const auto r = run_stampede({url, "-n", "40", "-c", "2", "-k", "--quiet", "--log", "-"});
  s->stop();
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream out(r.out);
  std::size_t lines = 0;
  for (std::string text; std::getline(out, text); ++lines) {
    const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(j.is_discarded()) << "not a log line on stdout: " << text;
    EXPECT_EQ(j["status"], 200);
  }
  EXPECT_EQ(lines, 40u);
  EXPECT_NE(r.err.find("Completed requests:  40\n"), std::string::npos) << r.err;
}

// The disk is full from the first flush on (NDJSON has no header to fail at start): the report is
// printed whole, then one line says what was lost, and the exit status is 1.
TEST(RequestLogCli, AWriteFailureDuringTheRunIsOneLineAfterTheReport) {
  auto s = start_server();
  ASSERT_TRUE(s);
  TempDir dir;
  const std::string path = dir.file("full.ndjson");
  std::filesystem::create_symlink("/dev/full", path);
  const std::string url = "http://127.0.0.1:" + std::to_string(s->port()) + "/";
  const auto r = run_stampede({url, "-n", "30", "-c", "3", "-k", "--quiet", "--log", path});
  s->stop();
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.out.find("Completed requests:  30\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "stampede: --log '" + path +
                       "': writing failed: No space left on device; 30 request lines were not "
                       "written\n");
}

// --log - into a pipe whose reader is gone before the run starts: the writes fail with EPIPE (not
// a SIGPIPE that would kill the run): the report on stderr, then one line, exit 1.
TEST(RequestLogCli, AReaderThatGoesAwayIsOneLineNotASignal) {
  auto s = start_server();
  ASSERT_TRUE(s);
  TempDir dir;
  const std::string err_path = dir.file("err");
  const std::string url = "http://127.0.0.1:" + std::to_string(s->port()) + "/";
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[0]);  // no reader from the start
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fds[1], STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    ::execl(STAMPEDE_BINARY, STAMPEDE_BINARY, url.c_str(), "-n", "20", "-c", "2", "-k", "--quiet",
            "--log", "-", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  int status = 0;
  const bool ended = eventually([&] { return ::waitpid(child, &status, WNOHANG) == child; },
                                std::chrono::seconds(20));
  if (!ended) {
    ::kill(child, SIGKILL);
    ::waitpid(child, &status, 0);
  }
  s->stop();
  ASSERT_TRUE(ended);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 1);
  const std::string err = read_file(err_path);
  EXPECT_NE(err.find("Completed requests:  20\n"), std::string::npos) << err;
  EXPECT_NE(err.find("stampede: --log '-': writing failed: Broken pipe; 20 request lines were not "
                     "written\n"),
            std::string::npos)
      << err;
}

}  // namespace
}  // namespace stampede::testing
