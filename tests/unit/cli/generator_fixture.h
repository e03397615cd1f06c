// The fixture of the generator's command-line tests: parse() runs parse_command_line() with a
// fresh folder (a TempDir, removed after the test) as the one holding .loadtestrc (write_rc()
// writes it), and appends `url` (when not empty) to every command line; config() and settings()
// read what it made. OptionsBeforeUrl appends a fixed http:// URL, for tests of options alone.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/generator.h"
#include "support/temp_dir.h"

namespace stampede::loadgen {

class GeneratorCommandLine : public ::testing::Test {
 protected:
  explicit GeneratorCommandLine(std::string url = "") : url_(std::move(url)) {}

  // `args` without the program name.
  Expected<CliRequest> parse(std::vector<std::string> args) {
    args.insert(args.begin(), "stampede");
    if (!url_.empty()) args.push_back(url_);
    std::vector<const char*> argv;
    for (const auto& a : args)
      argv.push_back(a.c_str());
    return parse_command_line(static_cast<int>(argv.size()), argv.data(), dir_);
  }
  Config config(std::vector<std::string> args) {
    auto r = parse(std::move(args));
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? r->plan.config : Config{};
  }
  // What only the command line acts on (outputs, thresholds, scripts) for `args`.
  CliSettings settings(std::vector<std::string> args) {
    auto r = parse(std::move(args));
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? r->settings : CliSettings{};
  }
  // The error message for `args`; fails the test when they are accepted.
  std::string error(std::vector<std::string> args) {
    auto r = parse(std::move(args));
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.error().message;
  }
  // Writes `text` as the .loadtestrc parse() reads.
  void write_rc(const std::string& text) { std::ofstream(dir_ + "/.loadtestrc") << text; }

  const testing::TempDir tmp_;
  const std::string dir_ = tmp_.path();

 private:
  std::string url_;
};

class OptionsBeforeUrl : public GeneratorCommandLine {
 protected:
  OptionsBeforeUrl() : GeneratorCommandLine("http://127.0.0.1:8080/") {}
};

}  // namespace stampede::loadgen
