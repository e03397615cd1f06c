// Temporary directories for tests that leave nothing behind: each TempDir is a fresh, empty
// $TMPDIR/stampede-test-XXXXXX (/tmp when TMPDIR is unset), removed with everything in it when
// the TempDir goes out of scope. A test that needs a path keeps the TempDir alive as long as the
// path is in use (a local, a fixture member, or a static of the suite). FreshTmpdir checks that
// code cleans up after itself.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stampede::testing {

class TempDir {
 public:
  // Creates the directory; throws std::runtime_error (failing the test) when it cannot.
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + name.
  std::string file(std::string_view name) const { return path_ + "/" + std::string(name); }

 private:
  std::string path_;
};

// The directory temporary files go to: $TMPDIR, or /tmp when it is unset or empty.
std::string temp_base();

// Points TMPDIR at a fresh, empty directory (made in temp_base()) for its lifetime, so a test can
// see what a helper, a child process or a whole test binary leaves in the temporary folder; then
// restores TMPDIR and removes the directory. setenv is not thread-safe: construct and destroy it
// while the test runs no other thread.
class FreshTmpdir {
 public:
  FreshTmpdir();  // throws std::runtime_error when the directory cannot be made
  ~FreshTmpdir();
  FreshTmpdir(const FreshTmpdir&) = delete;
  FreshTmpdir& operator=(const FreshTmpdir&) = delete;

  const std::string& path() const { return path_; }
  // The names of the entries the directory holds now that start with `prefix`, sorted.
  std::vector<std::string> entries(std::string_view prefix = "") const;

 private:
  std::string path_;
  std::optional<std::string> previous_;  // TMPDIR before, if it was set
};

}  // namespace stampede::testing
