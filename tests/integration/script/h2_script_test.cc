// `stampede --http2 -R FILE.lua` against the in-process test server's h2c: scripted requests
// (method, path, header, body) and response() verdicts keep their HTTP/1.1 meaning over
// streams, with exact counts on both sides; requests HTTP/2 cannot carry are named errors and
// the run ends normally.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "script_fixture.h"

namespace stampede::testing {
namespace {

class ScriptOverHttp2 : public Script {
 protected:
  void SetUp() override {
    server_ = start_server_with([](server::ServerOptions& o) { o.id = "h2a"; });
    ASSERT_TRUE(server_);
  }
};

// Every 4th request asks for a 418 (the path arrived), every request is a POST with a header and
// a body (the server answers a request it read whole); response() fails the 418s under TEAPOT and
// any response without the server's x-instance under NO_INSTANCE.
TEST_F(ScriptOverHttp2, RequestsAndResponseVerdictsKeepTheirMeaning) {
  const std::string lua = write("r.lua", R"(
response_headers = {"X-Instance"}
function request(id)
  local path = "/?id=" .. id
  if id % 4 == 0 then path = "/?status=418&id=" .. id end
  return {method = "post", path = path, headers = {["x-id"] = tostring(id)},
          body = '{"id":' .. id .. '}'}
end
function response(status, headers, body)
  if headers["X-Instance"] ~= "h2a" then return "NO_INSTANCE" end
  if status == 418 then return "TEAPOT" end
  if body ~= '{"id":"h2a"}' then return "WRONG_BODY" end
end)");
  const nlohmann::json j =
      report(stampede({"--http2", "--streams", "4", "-n", "40", "-R", lua, url()}));
  EXPECT_EQ(j["totalRequests"], 40);
  EXPECT_EQ(j["errorCodes"]["TEAPOT"], 10);
  EXPECT_EQ(j["errorCodes"].size(), 1u) << j.dump();
  EXPECT_EQ(j["statusCodes"]["200"], 30);
  EXPECT_EQ(server_->served(), 40u);
}

// Over the head limit, an upgrade, a request the script cannot make: each a named error, exactly
// once per request that asked for it; only the good ones reach the server.
TEST_F(ScriptOverHttp2, RequestsHttp2CannotCarryAreNamedErrorsWithExactCounts) {
  const std::string lua = write("r.lua", R"(
big = string.rep("x", 70000)
function request(id)
  if id == 0 then return {} end
  local kind = id % 4
  if kind == 1 then return {headers = {["x-big"] = big}} end
  if kind == 2 then return {headers = {Connection = "upgrade", Upgrade = "websocket"}} end
  if kind == 3 then return {method = "GE T"} end
  return {path = "/ok"}
end)");
  const RunResult r = stampede({"--http2", "--streams", "2", "-n", "40", "-R", lua, url()});
  const nlohmann::json j = report(r);
  EXPECT_EQ(j["totalRequests"], 40);
  EXPECT_EQ(j["statusCodes"]["200"], 10);
  EXPECT_EQ(j["errorCodes"]["request too large"], 10);
  EXPECT_EQ(j["errorCodes"]["request not for HTTP/2"], 10);
  EXPECT_EQ(j["errorCodes"]["script error"], 10);
  EXPECT_EQ(j["errorCodes"].size(), 3u) << j.dump();
  EXPECT_EQ(server_->served(), 10u);
  EXPECT_EQ(occurrences(r.err, "invalid method"), 1u) << r.err;  // the first, once
}

TEST_F(ScriptOverHttp2, ExactCountWithEightStreams) {
  const std::string lua = write("r.lua", R"(
function request(id) return {path = "/n/" .. id} end
function response(status, headers, body) return status == 200 end)");
  const nlohmann::json j =
      report(stampede({"--http2", "--streams", "8", "-n", "2000", "-R", lua, url()}));
  EXPECT_EQ(j["totalRequests"], 2000);
  EXPECT_EQ(j["statusCodes"]["200"], 2000);
  EXPECT_EQ(j["totalErrors"], 0);
  EXPECT_EQ(server_->served(), 2000u);
}

}  // namespace
}  // namespace stampede::testing
