// `make deb`'s packages (cmake/package.cmake: stampede and stampede-dev) built from this tree
// with cpack, installed with apt-get as a user would, run from their installed copy
// (`stampede -V`, `man -w`, pkg-config), and removed, with every file they put in place gone. It
// needs root (CI runs as root on a throwaway machine) and skips otherwise; a sanitized tree does
// not compile it (the package is the Release tree's, `make deb`), so it never shows there as
// skipped. It never leaves the package installed: TearDown removes it whatever failed. It takes
// about 18 CPU seconds, most of them apt-get, dpkg and man-db's trigger (mandb) at install and at
// removal.
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

bool package_installed(const std::string& name) {
  const RunResult r = run_command({"/usr/bin/dpkg-query", "-W", "-f=${Status}", name}, seconds(20));
  return r.status == 0 && r.out == "install ok installed";
}

bool any_installed() {
  return package_installed("stampede") || package_installed("stampede-dev");
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
    if (any_installed()) {
      GTEST_SKIP() << "a stampede package is installed already: not replacing it";
    }
    if (std::filesystem::exists("/usr/bin/stampede")) {
      GTEST_SKIP() << "/usr/bin/stampede exists (installed by hand?): not overwriting it";
    }
  }
  void TearDown() override {
    if (installed_by_us_ && any_installed()) {
      const RunResult r = apt_get({"remove", "stampede", "stampede-dev"});
      EXPECT_EQ(r.status, 0) << outcome(r);
    }
  }

  // cpack -G DEB into the test's directory; the path of the package `name`_*.deb.
  std::string build_packages() {
    const RunResult r = run_command({STAMPEDE_CPACK, "-G", "DEB", "--config",
                                     STAMPEDE_BUILD_DIR "/CPackConfig.cmake", "-B", dir_.path()},
                                    seconds(240));
    EXPECT_EQ(r.status, 0) << outcome(r);
    return dir_.path();
  }
  std::string package(const std::string& name) const {
    for (const auto& e : std::filesystem::directory_iterator(dir_.path())) {
      const std::string file = e.path().filename().string();
      if (file.rfind(name + "_", 0) == 0 && e.path().extension() == ".deb") {
        return e.path().string();
      }
    }
    ADD_FAILURE() << "no " << name << "_*.deb in " << dir_.path();
    return "";
  }

  // The regular files dpkg lists for the installed package `name`.
  static std::vector<std::string> files_of(const std::string& name) {
    const RunResult listed = run_command({"/usr/bin/dpkg", "-L", name}, seconds(20));
    EXPECT_EQ(listed.status, 0) << outcome(listed);
    std::vector<std::string> files;
    for (const std::string& path : lines_in(listed.out)) {
      if (std::filesystem::is_regular_file(path)) files.push_back(path);
    }
    return files;
  }

  TempDir dir_;
  bool installed_by_us_ = false;
};

TEST_F(DebianPackage, InstallsRunsAndRemovesCleanly) {
  build_packages();
  const std::string deb = package("stampede");
  const std::string dev = package("stampede-dev");
  ASSERT_FALSE(deb.empty());
  ASSERT_FALSE(dev.empty());
  // The shared libraries the binaries link, found by dpkg-shlibdeps.
  RunResult r = run_command({"/usr/bin/dpkg-deb", "-f", deb, "Depends"}, seconds(20));
  ASSERT_EQ(r.status, 0) << outcome(r);
  for (const char* lib : {"libssl3", "liburing2", "libnghttp2-14", "libluajit-5.1-2", "libfmt9"})
    EXPECT_THAT(r.out, HasSubstr(lib));
  // What a program linking the static library needs: the -dev packages of what stampede.pc names.
  r = run_command({"/usr/bin/dpkg-deb", "-f", dev, "Depends"}, seconds(20));
  ASSERT_EQ(r.status, 0) << outcome(r);
  for (const char* lib :
       {"libfmt-dev", "libssl-dev", "zlib1g-dev", "liburing-dev", "libnghttp2-dev", "libwslay-dev"})
    EXPECT_THAT(r.out, HasSubstr(lib));

  installed_by_us_ = true;
  r = apt_get({"install", "--no-install-recommends", deb, dev});
  ASSERT_EQ(r.status, 0) << outcome(r);
  ASSERT_TRUE(package_installed("stampede"));
  ASSERT_TRUE(package_installed("stampede-dev"));

  const RunResult built = run_command({STAMPEDE_BINARY, "-V"}, seconds(20));
  r = run_command({"/usr/bin/stampede", "-V"}, seconds(20));
  EXPECT_EQ(r.status, 0) << outcome(r);
  EXPECT_EQ(r.out, built.out);
  EXPECT_THAT(r.out, HasSubstr("stampede "));
  std::vector<std::string> pages = {"stampede",     "stampede-serve", "stampede-balance",
                                    "stampede-lab", "stampede-merge", "stampede-compare"};
  if (STAMPEDE_HAS_MPI) pages.push_back("stampede-mpi");
  // man -w follows stampede-mpi's .so page to stampede(1), whose DISTRIBUTED RUNS section is its.
  for (const std::string& page : pages) {
    r = run_command({"/usr/bin/man", "-w", page}, seconds(20));
    EXPECT_EQ(r.status, 0) << outcome(r);
    const std::string shown = page == "stampede-mpi" ? "stampede" : page;
    EXPECT_EQ(r.out, "/usr/share/man/man1/" + shown + ".1.gz\n");
  }
  if (STAMPEDE_HAS_MPI) {
    r = run_command({"/usr/bin/env", "MANWIDTH=80", "/usr/bin/man", "-P", "cat", "stampede-mpi"},
                    seconds(20));
    EXPECT_EQ(r.status, 0) << outcome(r);
    EXPECT_THAT(r.out, HasSubstr("DISTRIBUTED RUNS"));
  }
  r = run_command({"/usr/bin/pkg-config", "--variable=prefix", "stampede"}, seconds(20));
  EXPECT_EQ(r.out, "/usr\n") << outcome(r);

  // Each file in its package: the tool in stampede, the library in stampede-dev.
  const std::vector<std::string> tool_files = files_of("stampede");
  const std::vector<std::string> dev_files = files_of("stampede-dev");
  for (const char* expected :
       {"/usr/bin/stampede", "/usr/share/bash-completion/completions/stampede",
        "/usr/share/zsh/vendor-completions/_stampede", "/usr/share/man/man1/stampede.1.gz"}) {
    EXPECT_THAT(tool_files, ::testing::Contains(std::string(expected)));
  }
  if (STAMPEDE_HAS_MPI) {
    EXPECT_THAT(tool_files, ::testing::Contains(std::string("/usr/bin/stampede-mpi")));
    EXPECT_THAT(tool_files,
                ::testing::Contains(std::string("/usr/share/man/man1/stampede-mpi.1.gz")));
  }
  for (const char* expected :
       {"/usr/lib/libstampede.a", "/usr/include/stampede/stampede.h",
        "/usr/lib/cmake/stampede/stampedeConfig.cmake", "/usr/lib/pkgconfig/stampede.pc"}) {
    EXPECT_THAT(dev_files, ::testing::Contains(std::string(expected)));
  }
  for (const std::string& path : tool_files)
    EXPECT_THAT(path, ::testing::Not(HasSubstr("/include/"))) << "a header in the tool package";
  for (const std::string& path : dev_files)
    EXPECT_THAT(path, ::testing::Not(HasSubstr("/bin/"))) << "a binary in the -dev package";

  r = apt_get({"remove", "stampede", "stampede-dev"});
  ASSERT_EQ(r.status, 0) << outcome(r);
  installed_by_us_ = false;
  EXPECT_FALSE(any_installed());
  for (const auto* files : {&tool_files, &dev_files}) {
    for (const std::string& path : *files)
      EXPECT_FALSE(std::filesystem::exists(path)) << path << " left behind";
  }
}

}  // namespace
}  // namespace stampede::testing
#endif  // !STAMPEDE_SANITIZED
