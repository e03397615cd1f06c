// `make deb`'s package (cmake/package.cmake) built from this tree with cpack, installed with
// apt-get as a user would, run from its installed copy (`stampede -V`, `man -w`, pkg-config),
// and removed, with every file it put in place gone. It needs root (CI runs as root on a
// throwaway machine) and skips otherwise; a sanitized tree does not compile it (the package is
// the Release tree's, `make deb`), so it never shows there as skipped. It never leaves the package
// installed: TearDown removes it whatever failed. It takes about 18 CPU seconds, most of them
// apt-get, dpkg and man-db's trigger (mandb) at install and at removal.
#if !STAMPEDE_SANITIZED
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "support/process.h"
#include "support/temp_dir.h"

namespace stampede::testing {
namespace {

using std::chrono::seconds;
using ::testing::HasSubstr;

std::string outcome(const RunResult& r) {
  return "status " + std::to_string(r.status) + "\n" + r.out + r.err;
}

bool package_installed() {
  const RunResult r =
      run_command({"/usr/bin/dpkg-query", "-W", "-f=${Status}", "stampede"}, seconds(20));
  return r.status == 0 && r.out == "install ok installed";
}

RunResult apt_get(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {
      "/usr/bin/env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "-y", "-q",
      "-o",           "DPkg::Lock::Timeout=60"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, seconds(180));
}

std::vector<std::string> lines_in(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

class DebianPackage : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) {
      GTEST_SKIP() << "installing a package needs root: this test runs in CI as root";
    }
    if (package_installed()) {
      GTEST_SKIP() << "a stampede package is installed already: not replacing it";
    }
    if (std::filesystem::exists("/usr/bin/stampede")) {
      GTEST_SKIP() << "/usr/bin/stampede exists (installed by hand?): not overwriting it";
    }
  }
  void TearDown() override {
    if (installed_by_us_ && package_installed()) {
      const RunResult r = apt_get({"remove", "stampede"});
      EXPECT_EQ(r.status, 0) << outcome(r);
    }
  }

  // cpack -G DEB into the test's directory; the package's path.
  std::string build_package() {
    const RunResult r = run_command({STAMPEDE_CPACK, "-G", "DEB", "--config",
                                     STAMPEDE_BUILD_DIR "/CPackConfig.cmake", "-B", dir_.path()},
                                    seconds(240));
    EXPECT_EQ(r.status, 0) << outcome(r);
    for (const auto& e : std::filesystem::directory_iterator(dir_.path())) {
      const std::string name = e.path().filename().string();
      if (name.rfind("stampede_", 0) == 0 && e.path().extension() == ".deb") {
        return e.path().string();
      }
    }
    ADD_FAILURE() << "no stampede_*.deb in " << dir_.path();
    return "";
  }

  TempDir dir_;
  bool installed_by_us_ = false;
};

TEST_F(DebianPackage, InstallsRunsAndRemovesCleanly) {
  const std::string deb = build_package();
  ASSERT_FALSE(deb.empty());
  // The shared libraries the binaries link, found by dpkg-shlibdeps.
  const RunResult depends = run_command({"/usr/bin/dpkg-deb", "-f", deb, "Depends"}, seconds(20));
  ASSERT_EQ(depends.status, 0) << outcome(depends);
  for (const char* lib : {"libssl3", "liburing2", "libnghttp2-14", "libluajit-5.1-2", "libfmt9"})
    EXPECT_THAT(depends.out, HasSubstr(lib));

  installed_by_us_ = true;
  RunResult r = apt_get({"install", "--no-install-recommends", deb});
  ASSERT_EQ(r.status, 0) << outcome(r);
  ASSERT_TRUE(package_installed());

  const RunResult built = run_command({STAMPEDE_BINARY, "-V"}, seconds(20));
  r = run_command({"/usr/bin/stampede", "-V"}, seconds(20));
  EXPECT_EQ(r.status, 0) << outcome(r);
  EXPECT_EQ(r.out, built.out);
  EXPECT_THAT(r.out, HasSubstr("stampede "));
  for (const char* page :
       {"stampede", "stampede-serve", "stampede-balance", "stampede-lab", "stampede-merge"}) {
    r = run_command({"/usr/bin/man", "-w", page}, seconds(20));
    EXPECT_EQ(r.status, 0) << outcome(r);
    EXPECT_EQ(r.out, "/usr/share/man/man1/" + std::string(page) + ".1\n");
  }
  r = run_command({"/usr/bin/pkg-config", "--variable=prefix", "stampede"}, seconds(20));
  EXPECT_EQ(r.out, "/usr\n") << outcome(r);
  const RunResult listed = run_command({"/usr/bin/dpkg", "-L", "stampede"}, seconds(20));
  ASSERT_EQ(listed.status, 0) << outcome(listed);
  std::vector<std::string> files;
  for (const std::string& path : lines_in(listed.out)) {
    if (std::filesystem::is_regular_file(path)) files.push_back(path);
  }
  for (const char* expected :
       {"/usr/bin/stampede", "/usr/lib/libstampede.a", "/usr/include/stampede/stampede.h",
        "/usr/lib/cmake/stampede/stampedeConfig.cmake", "/usr/lib/pkgconfig/stampede.pc",
        "/usr/share/bash-completion/completions/stampede",
        "/usr/share/zsh/vendor-completions/_stampede"}) {
    EXPECT_THAT(files, ::testing::Contains(std::string(expected)));
  }

  r = apt_get({"remove", "stampede"});
  ASSERT_EQ(r.status, 0) << outcome(r);
  installed_by_us_ = false;
  EXPECT_FALSE(package_installed());
  for (const std::string& path : files)
    EXPECT_FALSE(std::filesystem::exists(path)) << path << " left behind";
}

}  // namespace
}  // namespace stampede::testing
#endif  // !STAMPEDE_SANITIZED
