#include "support/temp_dir.h"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <utility>

namespace stampede::testing {

std::string temp_base() {
  const char* base = std::getenv("TMPDIR");
  return base != nullptr && *base != '\0' ? base : "/tmp";
}

TempDir::TempDir() : path_(temp_base() + "/stampede-test-XXXXXX") {
  if (mkdtemp(path_.data()) == nullptr) throw std::runtime_error("mkdtemp failed: " + path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

FreshTmpdir::FreshTmpdir() : path_(temp_base() + "/stampede-tmpdir-check-XXXXXX") {
  if (const char* old = std::getenv("TMPDIR")) previous_ = old;
  if (mkdtemp(path_.data()) == nullptr) throw std::runtime_error("mkdtemp failed: " + path_);
  setenv("TMPDIR", path_.c_str(), 1);
}

FreshTmpdir::~FreshTmpdir() {
  if (previous_) {
    setenv("TMPDIR", previous_->c_str(), 1);
  } else {
    unsetenv("TMPDIR");
  }
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::vector<std::string> FreshTmpdir::entries(std::string_view prefix) const {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(path_, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0) names.push_back(std::move(name));
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace stampede::testing
