// `cmake --install` into a temporary prefix, then examples/p99 configured with
// find_package(stampede), built against that installed copy and run; and the pkg-config file.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
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
