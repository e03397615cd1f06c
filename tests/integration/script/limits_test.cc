// Scripts are bounded (src/script/lua_script.h): a call that loops or allocates without end is
// stopped with a message naming the script and the phase; at the top level that is one line
// and exit status 2, during the run the run stops and its report is printed. Ctrl-C, SIGTERM
// and the -t deadline end a run stuck in a script. The sandbox has no way to end the process.
#include <signal.h>

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "script_fixture.h"

namespace stampede::testing {
namespace {

using Clock = std::chrono::steady_clock;

// Loops without end, each step a few instructions and a C call of some microseconds: the
// instruction budget would take minutes to stop it, the time limit (kCallSeconds) seconds, so
// what stops it sooner is the stop or the deadline.
constexpr const char* kSlowLoop = "while true do local s = string.rep('x', 100000) end";

// A loop that catches the error stopping it, at every level it can.
constexpr const char* kCatchingLoop = "while true do pcall(function() while true do end end) end";

// Each instruction slow (an error raised and caught, some microseconds): stopped by the time.
constexpr const char* kCatchingErrors = "while true do pcall(error) end";

// Asks for more than the limit at once: growing to it by small steps takes seconds of page
// faults on a loaded machine, and the time limit could come first.
constexpr const char* kAllocating =
    "local t = {} while true do t[#t + 1] = string.rep('x', 2^28 + #t) end";

constexpr const char* kTooMany = "stopped after 100000000 instructions";
constexpr const char* kTooBig = "stopped at the memory limit of 256 MiB";
constexpr const char* kTooLong = "stopped after 5 s, the limit of one call";

TEST_F(Script, TopLevelOverItsLimitsIsOneLineAndExitStatus2) {
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {"while true do end", std::string(": the top level ") + kTooMany},
      {kCatchingLoop, std::string(": the top level ") + kTooMany},
      {kCatchingErrors, std::string(": the top level ") + kTooLong},
      {"xpcall(function() while true do end end, function() while true do end end)",
       std::string(": the top level ") + kTooMany},
      {"while true do coroutine.resume(coroutine.create(function() while true do end end)) end",
       std::string(": the top level ") + kTooMany},
      {kAllocating, std::string(": the top level ") + kTooBig},
      // The sandbox: os.exit is not there, so the script cannot end stampede.
      {"function request(id) return {} end\nos.exit(7)", ":2: attempt to call field 'exit'"},
  };
  for (const Case& c : cases) {
    const std::string lua = write("r.lua", c.text);
    const auto start = Clock::now();
    const RunResult r = stampede({"-n", "5", "-R", lua, url()});
    EXPECT_LT(Clock::now() - start, seconds(25)) << c.text;
    EXPECT_EQ(r.status, 2) << c.text;
    EXPECT_EQ(r.err.rfind("stampede: script " + lua + c.message, 0), 0u) << r.err;
    EXPECT_EQ(occurrences(r.err, "\n"), 1u) << r.err;
    EXPECT_EQ(r.out, "");
  }
  EXPECT_EQ(server_->totals().requests, 0u);
}

// A call over its limits during the run stops the run: the report shows what ran, the message
// names the script and the phase.
TEST_F(Script, CallsOverTheirLimitsStopTheRunWithTheReport) {
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {"function request(id) if id > 4 then while true do end end return {} end",
       std::string("request(): ") + "LUA: " + kTooMany},
      {"function request(id) if id > 4 then " + std::string(kCatchingLoop) + " end return {} end",
       std::string("request(): ") + "LUA: " + kTooMany},
      {"function request(id) if id > 4 then " + std::string(kAllocating) + " end return {} end",
       std::string("request(): ") + "LUA: " + kTooBig},
  };
  for (const Case& c : cases) {
    const std::string lua = write("r.lua", c.text);
    const auto start = Clock::now();
    const RunResult r = stampede({"-n", "1000", "-R", lua, url("/?status=200")});
    EXPECT_LT(Clock::now() - start, seconds(25)) << c.text;
    std::string message = c.message;
    message.replace(message.find("LUA"), 3, lua);
    EXPECT_NE(r.err.find("stampede: " + message), std::string::npos) << r.err;
    const nlohmann::json j = report(r);
    EXPECT_EQ(j["interrupted"], true) << c.text;
    EXPECT_LT(j["totalRequests"], 1000) << c.text;
  }
}

TEST_F(Script, ResponseOverItsLimitStopsTheRun) {
  const std::string lua = write("r.lua",
                                "function request(id) return {} end\n"
                                "function response(status) if status == 404 then while true do "
                                "end end end");
  const RunResult r = stampede({"-n", "1000", "-R", lua, url("/?status=404")});
  EXPECT_NE(r.err.find("stampede: response(): " + lua + ": " + kTooMany + ", the limit"),
            std::string::npos)
      << r.err;
  const nlohmann::json j = report(r);
  EXPECT_EQ(j["interrupted"], true);
  EXPECT_LT(j["totalRequests"], 1000);
  EXPECT_GE(j["errorCodes"]["script error"], 1);
}

TEST_F(Script, DoneOverItsLimitIsReportedAndTheReportPrinted) {
  const std::string lua = write("r.lua",
                                "function request(id) return {} end\n"
                                "function done(summary) while true do end end");
  const RunResult r = stampede({"-n", "10", "-R", lua, url()});
  EXPECT_EQ(r.err, "stampede: done(): " + lua + ": " + kTooMany +
                       ", the limit of one call (an endless loop?)\n");
  EXPECT_EQ(report(r)["totalRequests"], 10);
}

TEST_F(Script, TheSandboxHasNothingThatEndsTheProcess) {
  const std::string lua = write("r.lua", R"(
for _, name in ipairs({"debug", "jit", "ffi", "package", "require", "module", "load",
                       "loadstring", "loadfile", "dofile", "newproxy"}) do
  assert(_G[name] == nil, name)
end
assert(os.exit == nil and os.execute == nil and os.remove == nil and io.popen == nil)
assert(io.read == nil and io.lines == nil and io.stdin == nil and io.input == nil)
assert(os.time() and os.clock() and os.date() and os.getenv and io.open and io.write)
function request(id)
  if id == 3 then os.exit(7) end
  return {}
end)");
  const RunResult r = run_with_script_errors(lua, 10, 1).run;
  EXPECT_NE(r.err.find("attempt to call field 'exit'"), std::string::npos) << r.err;
}

// Starts a run whose request() gets stuck in kSlowLoop once request 3 is reached (after
// writing `mark`); returns once it is stuck.
class Stuck : public Script {
 protected:
  void start(std::vector<std::string> extra) {
    mark_ = dir_ + "/stuck";
    lua_ = write("r.lua", "function request(id)\n  if id == 3 then\n    local f = io.open('" +
                              mark_ + "', 'w')\n    f:write('1')\n    f:close()\n    " + kSlowLoop +
                              "\n  end\n  return {}\nend");
    std::vector<std::string> args = {
        STAMPEDE_BINARY, "--quiet", "--json", "-c", "1", "-k", "-R", lua_, url()};
    args.insert(args.end(), extra.begin(), extra.end());
    child_ = std::make_unique<ChildProcess>(args);
    ASSERT_EQ(wait_for_port_file(mark_, std::chrono::milliseconds(20000)), 1);
  }
  // Waits for the child to end; checks the message and the report it printed.
  void expect_ended(const std::string& message, Clock::time_point since) {
    const int status = child_->wait(std::chrono::milliseconds(10000));
    EXPECT_LT(Clock::now() - since, seconds(4));  // the time limit of a call is 5 s
    EXPECT_EQ(status, 0) << child_->stderr_text();
    EXPECT_NE(child_->stderr_text().find("stampede: request(): " + lua_ + ": " + message + "\n"),
              std::string::npos)
        << child_->stderr_text();
    const nlohmann::json j = nlohmann::json::parse(child_->stdout_text(), nullptr, false);
    ASSERT_TRUE(j.is_object()) << child_->stdout_text();
    EXPECT_GE(j["totalRequests"], 3);
    EXPECT_GE(j["errorCodes"]["script error"], 1);
  }

  std::string mark_, lua_;
  std::unique_ptr<ChildProcess> child_;
};

TEST_F(Stuck, SigintEndsARunStuckInAScriptWithTheReport) {
  start({"-n", "100"});
  const auto sent = Clock::now();
  ASSERT_TRUE(child_->signal(SIGINT));
  expect_ended("stopped: the run was interrupted", sent);
}

TEST_F(Stuck, SigtermEndsARunStuckInAScriptWithTheReport) {
  start({"-n", "100"});
  const auto sent = Clock::now();
  ASSERT_TRUE(child_->signal(SIGTERM));
  expect_ended("stopped: the run was interrupted", sent);
}

TEST_F(Stuck, TheDeadlineEndsARunStuckInAScript) {
  const auto started = Clock::now();
  start({"-t", "1"});
  expect_ended("stopped: the run's time (-t) was up", started);
}

}  // namespace
}  // namespace stampede::testing
