// `stampede -R FILE.lua` and `-p FILE.lua`: scripted requests, response checks, done(), and
// script errors before (exit 2, nothing sent) and during the run (counted, shown once).
// The binary runs against in-process servers on 127.0.0.1.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "script_fixture.h"
#include "support/scripted_server.h"
#include "support/temp_dir.h"

namespace stampede::testing {
namespace {

TEST_F(Script, RequestBuildsEachRequest) {
  const std::string lua = write("r.lua", R"(
function request(id)
  if id % 2 == 0 then return {path = "/?status=503"} end
  return {method = "post", path = "/ok?id=" .. id, headers = {["x-id"] = tostring(id)},
          body = '{"id":' .. id .. '}'}
end)");
  const nlohmann::json j = report(stampede({"-n", "20", "-R", lua, url()}));
  EXPECT_EQ(j["totalRequests"], 20);
  EXPECT_EQ(j["errorCodes"]["503"], 10);
  EXPECT_EQ(j["statusCodes"]["200"], 10);
}

TEST_F(Script, ResponseMarksFailuresAndDoneSeesTheSummary) {
  const std::string lua = write("r.lua", R"(
response_headers = {"content-type"}
function request(id) return {} end
function response(status, headers, body)
  if status ~= 200 or body ~= "OK" or headers["content-type"] == nil then return "WRONG" end
end
function done(summary)
  io.stderr:write("done: " .. summary.totalRequests .. " " .. summary.errorCodes.WRONG .. "\n")
end)");
  const RunResult r = stampede({"-n", "12", "-R", lua, url("/?status=404")});
  const nlohmann::json j = report(r);
  EXPECT_EQ(j["errorCodes"]["WRONG"], 12);
  EXPECT_EQ(j["errorCodes"].size(), 1u) << j.dump();
  EXPECT_NE(r.err.find("done: 12 12\n"), std::string::npos) << r.err;
}

TEST_F(Script, ResponseAcceptsGoodResponses) {
  const std::string lua = write("r.lua", R"(
function request(id) return {path = "/"} end
function response(status, headers, body) return status == 200 and body == "OK" end)");
  const nlohmann::json j = report(stampede({"-n", "10", "-R", lua, url()}));
  EXPECT_EQ(j["totalErrors"], 0);
}

TEST_F(Script, ErrorsBeforeTheRunSendNothing) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"function request(id)\n  return {path = '/' .. }\nend", "r.lua:2:"},
      {"x = nil\nx.y = 1", "r.lua:2:"},
      {"function request(id) return 'GET /' end", "must return a table"},
      {"function request(id) return {path = {}} end", "'path' must be a string"},
      {"function request(id) return {headers = {1, 2}} end", "'headers' must map"},
      {"function request(id)\n  error('no id')\nend", "r.lua:2: no id"},
      {"function reqest(id) end", "does not define a function request()"},
      {"function request(id) return {method = 'BAD METHOD'} end", "invalid method"},
      // One framing rule for every request (http::validate_request), as -H has.
      {"function request(id) return {headers = {['Content-Length'] = '5', "
       "['Transfer-Encoding'] = 'chunked'}, body = '0\\r\\n\\r\\nGET /s HTTP/1.1\\r\\n\\r\\n'} "
       "end",
       "cannot be set: the body is framed"},
      {"function request(id) return {headers = {['transfer-encoding'] = 'chunked'}} end",
       "'transfer-encoding' cannot be set"},
      {"function request(id) return {headers = {['content-length'] = '1'}, body = 'abc'} end",
       "'content-length' cannot be set"},
      {"function request(id) return {headers = {['x-a'] = 'v\\r\\nx-b: w'}} end", "CR, LF or NUL"},
      {"function request(id) return {headers = {['x-a\\r\\nx-b'] = 'v'}} end",
       "invalid header name"},
      {"function request(id) return {method = 'GET /x HTTP/1.1\\r\\n'} end", "invalid method"},
      {"function request(id) return {path = '/x\\r\\nx-b: w'} end", "control character"},
  };
  for (const Case& c : cases) {
    const std::string lua = write("r.lua", c.text);
    const RunResult r = stampede({"-n", "5", "-R", lua, url()});
    EXPECT_EQ(r.status, 2) << c.text;
    EXPECT_EQ(occurrences(r.err, "\n"), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("stampede: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.text << " -> " << r.err;
  }
  const RunResult missing = stampede({"-n", "5", "-R", dir_ + "/none.lua", url()});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("none.lua"), std::string::npos) << missing.err;
  EXPECT_EQ(server_->totals().requests, 0u);
}

// A WebSocket run sends the body as each message: a script would be silently ignored, so it
// is refused before anything is sent, one line, exit status 2.
TEST_F(Script, ScriptsAreRefusedForWebSocketUrls) {
  const std::string request = write("r.lua", "function request(id) return {path = '/x'} end");
  const std::string body = write("b.lua", "function body(id) return 'm' .. id end");
  const std::string ws = "ws://127.0.0.1:" + std::to_string(server_->port()) + "/";
  const std::string message = "give the message with --data, -P or -p FILE";
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"-R", request},
       "-R '" + request + "': a Lua request script does not apply to a WebSocket URL: " + message},
      {{"-p", body},
       "'" + body + "': a Lua body script does not apply to a WebSocket URL: " + message +
           " (text, not a .lua file)"},
  };
  for (const auto& [script, expected] : cases) {
    const RunResult r = stampede({"-n", "5", script[0], script[1], ws});
    EXPECT_EQ(r.status, 2) << script[0];
    EXPECT_EQ(r.err, "stampede: " + expected + "\n");
    EXPECT_EQ(r.out, "");
  }
  EXPECT_EQ(server_->totals().connections, 0u);  // not even the upgrade
  EXPECT_EQ(report(stampede({"-n", "5", "-p", body, url()}))["totalRequests"], 5);  // http: used
}

// --index would be ignored by a script (it builds each request from its id): refused before
// anything is sent, one line, exit status 2.
TEST_F(Script, IndexIsRefusedWithScripts) {
  const std::string request = write("r.lua", "function request(id) return {path = '/'} end");
  const std::string body = write("b.lua", "function body(id) return 'x' .. id end");
  const std::string use = "stampede: --index: does not apply to Lua scripts: use the id argument ";
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const Case cases[] = {
      {{"-R", request}, use + "of request(id) in '" + request + "'\n"},
      {{"-p", body}, use + "of body(id) in '" + body + "'\n"},
      {{"-u", body, "-R", request},
       use + "of request(id) in '" + request + "' and of body(id) in '" + body + "'\n"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"-n", "5", "--index", "IDX"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.push_back(url("/IDX"));
    const RunResult r = stampede(args);
    EXPECT_EQ(r.status, 2) << c.err;
    EXPECT_EQ(r.err, c.err);
    EXPECT_EQ(r.out, "");
  }
  EXPECT_EQ(server_->totals().requests, 0u);
}

TEST_F(Script, ErrorsDuringTheRunAreCountedAndShownOnce) {
  const std::string lua = write("r.lua", R"(
function request(id)
  if id % 4 == 0 and id > 0 then error("boom at " .. id) end
  return {}
end)");
  const RunResult r = run_with_script_errors(lua, 20, 5).run;
  EXPECT_EQ(occurrences(r.err, "boom at"), 1u) << r.err;
  EXPECT_NE(r.err.find("r.lua:3: boom at"), std::string::npos) << r.err;
  EXPECT_EQ(server_->totals().requests, 15u);
}

// A request the framing rule refuses during the run is not sent: counted once as a script
// error, and the server never sees its body's smuggled request.
TEST_F(Script, ContradictoryFramingDuringTheRunIsNotSent) {
  const std::string lua = write("r.lua", R"(
function request(id)
  if id ~= 3 then return {} end
  return {method = "POST", headers = {["Content-Length"] = "5", ["Transfer-Encoding"] = "chunked"},
          body = "0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"}
end)");
  const auto [r, j] = run_with_script_errors(lua, 20, 1);
  EXPECT_EQ(j["errorCodes"].size(), 1u) << j.dump();
  EXPECT_NE(r.err.find("cannot be set: the body is framed by the Content-Length"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(server_->totals().requests, 19u);
}

TEST(ScriptBody, BodyScriptGivesEachBody) {
  std::mutex mutex;
  std::vector<std::string> requests;
  ScriptedServer server([&](std::uint64_t, const std::string& request) {
    std::lock_guard lock(mutex);
    requests.push_back(request);
    return ok_reply(request);
  });
  const TempDir temp_dir;
  const std::string& dir = temp_dir.path();
  const std::string lua = dir + "/b.lua";
  std::ofstream(lua) << "function body(id) return '{\"n\":' .. id .. '}' end\n";
  const RunResult r = run_command({STAMPEDE_BINARY, "--quiet", "-n", "10", "-c", "2", "-k", "-u",
                                   lua, "-T", "application/json", server.url()},
                                  seconds(30));
  ASSERT_EQ(r.status, 0) << r.err;
  std::set<std::string> bodies;
  std::lock_guard lock(mutex);
  ASSERT_EQ(requests.size(), 10u);
  for (const std::string& request : requests) {
    EXPECT_EQ(request.rfind("PUT / HTTP/1.1\r\n", 0), 0u) << request;
    EXPECT_NE(request.find("application/json"), std::string::npos) << request;
    bodies.insert(request.substr(request.find("\r\n\r\n") + 4));
  }
  EXPECT_EQ(bodies.size(), 10u);
  EXPECT_TRUE(bodies.count("{\"n\":1}")) << *bodies.begin();
  EXPECT_TRUE(bodies.count("{\"n\":10}"));
}

}  // namespace
}  // namespace stampede::testing
