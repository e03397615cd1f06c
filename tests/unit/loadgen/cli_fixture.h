// The fixture of the generator's command-line tests (cli_test, rate_options_test,
// thresholds_test): parses an argument list as `stampede ARGS...` with a fresh folder of its
// own (dir_, removed after the test) standing for the working directory that holds .loadtestrc.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "loadgen/cli.h"
#include "support/temp_dir.h"

namespace stampede::loadgen {

class CliFixture : public ::testing::Test {
 protected:
  // `url`, when not empty, is appended to every argument list (for tests about other options).
  explicit CliFixture(std::string url = "") : url_(std::move(url)) {}

  Result<CliRequest> parse(std::vector<std::string> args) {
    args.insert(args.begin(), "stampede");
    if (!url_.empty()) args.push_back(url_);
    std::vector<const char*> argv;
    for (const auto& a : args)
      argv.push_back(a.c_str());
    return parse_command_line(static_cast<int>(argv.size()), argv.data(), dir_);
  }
  // The configuration `args` give; fails the test when they are refused.
  Config config(std::vector<std::string> args) {
    auto r = parse(std::move(args));
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? r->config : Config{};
  }
  // The error message for `args`; fails the test when they are accepted.
  std::string error(std::vector<std::string> args) {
    auto r = parse(std::move(args));
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.error().message;
  }
  // Writes `text` to the file `name` in dir_; returns its path.
  std::string write_file(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  testing::TempDir temp_dir_;
  std::string dir_ = temp_dir_.path();

 private:
  std::string url_;
};

}  // namespace stampede::loadgen
