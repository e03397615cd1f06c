// The fixture of the script tests: a temp directory for the scripts, an in-process server
// on 127.0.0.1 (port 0), and the stampede binary run to completion against it.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/process.h"
#include "support/temp_dir.h"
#include "support/test_server.h"

namespace stampede::testing {

using std::chrono::seconds;

inline nlohmann::json report(const RunResult& r) {
  EXPECT_EQ(r.status, 0) << r.err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

class Script : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = start_server();
    ASSERT_TRUE(server_);
  }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  std::string url(const std::string& path = "/") const {
    return "http://127.0.0.1:" + std::to_string(server_->port()) + path;
  }
  RunResult stampede(std::vector<std::string> args) {
    args.insert(args.begin(), {STAMPEDE_BINARY, "--quiet", "--json", "-c", "2", "-k"});
    return run_command(args, seconds(30));
  }

  // A run of `requests` requests built by the request script at `lua` (-n requests -R lua), its
  // JSON report, and the checks every run with failing script calls makes: exit status 0, each
  // request counted, `script_errors` of them as script errors.
  struct ScriptRun {
    RunResult run;
    nlohmann::json report;
  };
  ScriptRun run_with_script_errors(const std::string& lua, int requests, int script_errors) {
    ScriptRun s{stampede({"-n", std::to_string(requests), "-R", lua, url()}), {}};
    s.report = report(s.run);
    EXPECT_EQ(s.report["totalRequests"], requests);
    EXPECT_EQ(s.report["errorCodes"]["script error"], script_errors) << s.report.dump();
    return s;
  }

  TempDir temp_dir_;
  std::string dir_ = temp_dir_.path();
  std::unique_ptr<server::Server> server_;
};

inline std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

}  // namespace stampede::testing
