// The test helpers leave nothing in the temporary folder: a TempDir, a ChildProcess and
// run_command put their files under $TMPDIR and remove them when done, and so whole test
// binaries that use them leave $TMPDIR as they found it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/process.h"
#include "support/temp_dir.h"

namespace stampede::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names)
    out += n + " ";
  return out;
}

TEST(TempDirs, ATempDirLivesUnderTmpdirAndGoesWithItsContents) {
  const FreshTmpdir tmp;
  std::string path;
  {
    const TempDir dir;
    path = dir.path();
    EXPECT_EQ(fs::path(path).parent_path(), fs::path(tmp.path()));
    EXPECT_EQ(fs::path(path).filename().string().rfind("stampede-test-", 0), 0u) << path;
    std::ofstream(dir.file("ready")) << "1234\n";
    fs::create_directory(dir.file("sub"));
    std::ofstream(dir.file("sub/x")) << "x";
    EXPECT_EQ(tmp.entries().size(), 1u) << joined(tmp.entries());
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(tmp.entries().empty()) << joined(tmp.entries());
}

TEST(TempDirs, ChildProcessAndRunCommandRemoveTheirOutputFiles) {
  const FreshTmpdir tmp;
  {
    ChildProcess child({"/bin/sh", "-c", "echo out; echo err >&2"});
    EXPECT_EQ(child.wait(10s), 0);
    EXPECT_EQ(child.stdout_text(), "out\n");
    EXPECT_EQ(child.stderr_text(), "err\n");
    EXPECT_EQ(tmp.entries().size(), 1u) << joined(tmp.entries());
  }
  EXPECT_TRUE(tmp.entries().empty()) << joined(tmp.entries());
  const RunResult r = run_command({"/bin/sh", "-c", "echo hello"}, 10s);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "hello\n");
  EXPECT_TRUE(tmp.entries().empty()) << joined(tmp.entries());
}

// Whole test binaries, run as `make test` runs them but with TMPDIR of their own: the ones that
// make the most directories (one per started process, one per ready file) leave none.
TEST(TempDirs, TestBinariesLeaveNothingBehind) {
  const FreshTmpdir tmp;
  const RunResult core =
      run_command({STAMPEDE_UNIT_CORE_TESTS, "--gtest_filter=ReadyFile*:InputFile*"}, 60s);
  EXPECT_EQ(core.status, 0) << core.out << core.err;
  const RunResult server = run_command(
      {STAMPEDE_INTEGRATION_SERVER_TESTS,
       "--gtest_filter=ServeBinary.ReadyFileThenSigtermPrintsTotalsAndExitsZero:ServeBinary."
       "BadInputExitsTwoWithOneLine:ServeBinary.ReadyFileInAMissingDirectoryIsAnError:"
       "ServerProtocol.BodyFromFile"},
      60s);
  EXPECT_EQ(server.status, 0) << server.out << server.err;
  EXPECT_NE(server.out.find("[  PASSED  ] 4 tests"), std::string::npos) << server.out;
  EXPECT_TRUE(tmp.entries().empty()) << joined(tmp.entries());
}

}  // namespace
}  // namespace stampede::testing
