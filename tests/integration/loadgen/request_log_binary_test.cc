// --log on the command line: what it refuses (one line, exit 2, before anything is created or
// sent), --log - (stdout is the log alone, the report goes to stderr), and a disk that fills
// during the run (the report still prints, then one line, exit 1).
#include <gtest/gtest.h>

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
      {{"--log", csv, "--http2"}, "--log does not work with --http2 yet"},
      {{"--log", csv, "-k", "--pipeline", "2"}, "--log does not work with --pipeline yet"},
      {{"--log", csv, "--sweep-connections", "1,2"},
       "--log records one run: not with --sweep-connections or --find-max"},
      {{"--log", csv, "--find-max", "--max-p99", "10"},
       "--log records one run: not with --sweep-connections or --find-max"},
      {{"--log", "-", "--save", "-"},
       "--log - and --save - both write to stdout: give one of them a file name"},
  };
  for (const LogRefusal& c : cases) {
    std::vector<std::string> args{url};
    args.insert(args.end(), c.args.begin(), c.args.end());
    EXPECT_EQ(generator_refusal(args, dir.path()), c.line) << shown_args(args);
  }
  EXPECT_EQ(generator_refusal({"ws://127.0.0.1:1/", "--log", csv}, dir.path()),
            "--log does not apply to WebSocket (ws://, wss://) yet");
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

}  // namespace
}  // namespace stampede::testing
