// `cmake --install` into a temporary prefix, then examples/p99 configured with
// find_package(stampede), built against that installed copy at the C++ standard the package
// states and run; the pkg-config file; and that the headers need that standard, no less.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/process.h"
#include "support/temp_dir.h"

namespace stampede::testing {
namespace {

using std::chrono::seconds;

std::string describe(const RunResult& r) {
  return "status " + std::to_string(r.status) + "\n" + r.out + r.err;
}

// The NN of "cxx_std_NN" in an installed stampedeConfig.cmake, or 0.
int stated_standard(const std::string& config_text) {
  const std::string key = "cxx_std_";
  const std::size_t at = config_text.find(key);
  if (at == std::string::npos) return 0;
  return std::atoi(config_text.c_str() + at + key.size());
}

// Compiles a file that includes every public header at -std=c++`standard` (no link).
RunResult compile_headers(const std::string& prefix, int standard) {
  const std::string source = prefix + "/headers.cc";
  std::ofstream(source) << "#include <stampede/stampede.h>\nint main() { return 0; }\n";
  return run_command({STAMPEDE_CXX, "-std=c++" + std::to_string(standard), "-fsyntax-only",
                      "-I" + prefix + "/include", source},
                     seconds(60));
}

class Installed : public ::testing::Test {
 protected:
  void SetUp() override {
    const RunResult r = run_command(
        {STAMPEDE_CMAKE, "--install", STAMPEDE_BUILD_DIR, "--prefix", prefix_}, seconds(60));
    ASSERT_EQ(r.status, 0) << describe(r);
  }
  TempDir temp_dir_;
  std::string prefix_ = temp_dir_.path();
};

TEST_F(Installed, OnlyPublicHeadersAndTheLibrary) {
  namespace fs = std::filesystem;
  EXPECT_TRUE(fs::exists(prefix_ + "/lib/libstampede.a"));
  EXPECT_TRUE(fs::exists(prefix_ + "/lib/cmake/stampede/stampedeConfig.cmake"));
  EXPECT_TRUE(fs::exists(prefix_ + "/bin/stampede"));
  std::vector<std::string> headers;
  for (const auto& e : fs::recursive_directory_iterator(prefix_ + "/include")) {
    if (e.is_regular_file()) headers.push_back(e.path().lexically_relative(prefix_).string());
  }
  std::sort(headers.begin(), headers.end());
  EXPECT_EQ(headers,
            (std::vector<std::string>{"include/stampede/callbacks.h", "include/stampede/error.h",
                                      "include/stampede/load_test.h", "include/stampede/server.h",
                                      "include/stampede/stampede.h"}));
}

// The man pages the build wrote (one per subcommand, and stampede-mpi's beside its binary),
// gzipped as Debian's policy asks, and the completions, where man, bash-completion and zsh look
// for them under the prefix.
TEST_F(Installed, ManPagesAndCompletions) {
  namespace fs = std::filesystem;
  const std::string man1 = prefix_ + "/share/man/man1/";
  std::vector<std::string> pages;
  for (const auto& e : fs::directory_iterator(man1))
    pages.push_back(e.path().filename().string());
  std::sort(pages.begin(), pages.end());
  std::vector<std::string> expected = {"stampede-balance.1.gz", "stampede-compare.1.gz",
                                       "stampede-lab.1.gz",     "stampede-merge.1.gz",
                                       "stampede-serve.1.gz",   "stampede.1.gz"};
  if (STAMPEDE_HAS_MPI) expected.insert(expected.begin() + 4, "stampede-mpi.1.gz");
  EXPECT_EQ(pages, expected);
  // gzip's magic, and the page inside is roff (the .so alias for stampede-mpi).
  for (const std::string& page : pages) {
    const RunResult r = run_command({"/bin/gzip", "-dc", man1 + page}, seconds(10));
    ASSERT_EQ(r.status, 0) << page << ": " << describe(r);
    EXPECT_EQ(r.out.substr(0, 1), ".") << page;
  }
  if (STAMPEDE_HAS_MPI) {
    const RunResult r = run_command({"/bin/gzip", "-dc", man1 + "stampede-mpi.1.gz"}, seconds(10));
    EXPECT_EQ(r.out, ".so man1/stampede.1\n");
  }
  EXPECT_TRUE(fs::exists(prefix_ + "/share/bash-completion/completions/stampede"));
  EXPECT_TRUE(fs::exists(prefix_ + "/share/zsh/vendor-completions/_stampede"));
}

TEST_F(Installed, PkgConfigNamesTheLibrary) {
  const std::string pc_dir = prefix_ + "/lib/pkgconfig";
  const RunResult r = run_command(
      {"/usr/bin/env", "PKG_CONFIG_PATH=" + pc_dir, "pkg-config", "--cflags", "--libs", "stampede"},
      seconds(10));
  ASSERT_EQ(r.status, 0) << describe(r);
  EXPECT_NE(r.out.find("-I" + prefix_ + "/include"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-L" + prefix_ + "/lib"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-lstampede"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-lfmt"), std::string::npos) << r.out;
  // Request scripts are the command line's: a user of the library does not need LuaJIT.
  EXPECT_EQ(r.out.find("luajit"), std::string::npos) << r.out;
  EXPECT_EQ(read_file(prefix_ + "/lib/cmake/stampede/stampedeConfig.cmake").find("LUAJIT"),
            std::string::npos);
}

// Both package files state the same standard; the headers compile at it and not at the one
// before (so it is the standard they really need, not one above or below).
TEST_F(Installed, PackageFilesStateTheStandardTheHeadersNeed) {
  const int standard =
      stated_standard(read_file(prefix_ + "/lib/cmake/stampede/stampedeConfig.cmake"));
  ASSERT_GE(standard, 14);
  const RunResult pc = run_command({"/usr/bin/env", "PKG_CONFIG_PATH=" + prefix_ + "/lib/pkgconfig",
                                    "pkg-config", "--variable=cxx_standard", "stampede"},
                                   seconds(10));
  ASSERT_EQ(pc.status, 0) << describe(pc);
  EXPECT_EQ(pc.out, std::to_string(standard) + "\n");
  const RunResult at = compile_headers(prefix_, standard);
  EXPECT_EQ(at.status, 0) << describe(at);
  const RunResult below = compile_headers(prefix_, standard - 3);
  EXPECT_NE(below.status, 0) << "the headers compile at C++" << standard - 3 << " too";
}

TEST_F(Installed, ExampleBuildsAndPasses) {
  const std::string build = prefix_ + "/example-build";
  std::vector<std::string> configure = {STAMPEDE_CMAKE,
                                        "-S",
                                        std::string(STAMPEDE_SOURCE_DIR) + "/examples/p99",
                                        "-B",
                                        build,
                                        "-G",
                                        "Ninja",
                                        "-DCMAKE_MAKE_PROGRAM=" STAMPEDE_MAKE_PROGRAM,
                                        "-DCMAKE_BUILD_TYPE=Release",
                                        "-DCMAKE_CXX_COMPILER=" STAMPEDE_CXX,
                                        "-DCMAKE_PREFIX_PATH=" + prefix_};
  // At the standard the package states (the example sets none), without GNU extensions.
  const int standard =
      stated_standard(read_file(prefix_ + "/lib/cmake/stampede/stampedeConfig.cmake"));
  ASSERT_GE(standard, 14);
  configure.push_back("-DCMAKE_CXX_STANDARD=" + std::to_string(standard));
  configure.push_back("-DCMAKE_CXX_EXTENSIONS=OFF");
  if (std::string(STAMPEDE_CXX_LAUNCHER).size() > 0) {
    configure.push_back("-DCMAKE_CXX_COMPILER_LAUNCHER=" STAMPEDE_CXX_LAUNCHER);
  }
  RunResult r = run_command(configure, seconds(120));
  ASSERT_EQ(r.status, 0) << describe(r);
  r = run_command({STAMPEDE_CMAKE, "--build", build}, seconds(240));
  ASSERT_EQ(r.status, 0) << describe(r);
  r = run_command({build + "/p99_test"}, seconds(60));
  ASSERT_EQ(r.status, 0) << describe(r);
  EXPECT_NE(r.out.find("Completed requests:  500"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[  PASSED  ] 1 test"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace stampede::testing
