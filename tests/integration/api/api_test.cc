// The public API against the in-process test server: blocking and background tests, the
// result's reports, and bad options refused before anything is sent. 127.0.0.1 only.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <sstream>
#include <string>

#include "api_options.h"
#include "stampede/stampede.h"
#include "support/scripted_server.h"

namespace {

using stampede::testing::options_for;

// What the server counted since it started, from its /count endpoint (not counted itself).
std::string served(const stampede::ServerHandle& server) {
  stampede::LoadTestOptions o = options_for(server, "/count");
  o.max_requests = 1;
  o.concurrency = 1;
  o.collect_body = true;
  std::string body;
  o.status_callback = [&body](const std::string&, const stampede::RequestResult& r,
                              const stampede::LatencyInfo&) { body = r.body; };
  stampede::load_test(o);
  return body;
}

TEST(ApiLoadTest, RunsExactlyMaxRequests) {
  stampede::ServerHandle server = stampede::start_server({});
  stampede::LoadTestOptions o = options_for(server);
  o.max_requests = 200;
  const stampede::Result r = stampede::load_test(o);
  EXPECT_EQ(r.total_requests, 200u);
  EXPECT_EQ(r.total_errors, 0u);
  EXPECT_EQ(r.status_codes.at(200), 200u);
  EXPECT_EQ(r.max_requests, 200u);
  EXPECT_EQ(r.concurrency, 4u);
  EXPECT_GT(r.percentile(99), 0.0);
  EXPECT_GE(r.max_latency_ms, r.percentile(50));
  EXPECT_GT(r.effective_rps, 0.0);
  std::ostringstream text;
  r.show(text);
  EXPECT_NE(text.str().find("Completed requests:  200\n"), std::string::npos) << text.str();
  const std::string json = r.to_json();
  EXPECT_NE(json.find("\"totalRequests\": 200"), std::string::npos) << json;
  EXPECT_NE(json.find("\"totalErrors\": 0"), std::string::npos) << json;
}

TEST(ApiLoadTest, CountsErrorStatuses) {
  stampede::ServerHandle server = stampede::start_server({});
  stampede::LoadTestOptions o = options_for(server, "/?status=503");
  o.max_requests = 20;
  const stampede::Result r = stampede::load_test(o);
  EXPECT_EQ(r.total_errors, 20u);
  EXPECT_EQ(r.error_codes.at("503"), 20u);
}

TEST(ApiLoadTest, BadOptionsThrowBeforeSending) {
  stampede::ServerHandle server = stampede::start_server({});
  auto throws = [&](auto change, const std::string& words) {
    stampede::LoadTestOptions o = options_for(server);
    o.max_requests = 5;
    change(o);
    try {
      stampede::load_test(o);
      ADD_FAILURE() << "no error for " << words;
    } catch (const stampede::Error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  throws([](auto& o) { o.url = ""; }, "URL");
  throws([](auto& o) { o.url = "ftp://127.0.0.1/"; }, "scheme");
  throws([](auto& o) { o.concurrency = 0; }, "concurrency");
  throws([](auto& o) { o.cores = 0; }, "cores");
  throws([](auto& o) { o.max_seconds = -1; }, "max_seconds");
  throws([](auto& o) { o.headers["bad name"] = "x"; }, "header");
  throws([](auto& o) { o.requests_per_second = 0; }, "requests_per_second");
  throws([](auto& o) { o.requests_per_second = -5; }, "requests_per_second");
  throws([](auto& o) { o.json_body = "{\"a\":"; }, "json_body");
  throws(
      [](auto& o) {
        o.body = "x";
        o.json_body = "{}";
      },
      "json_body");
  throws([](auto& o) { o.index_param_callback = [](std::uint64_t) { return ""; }; }, "index_param");
  // A WebSocket test sends the body as each message: a callback would silently not be called.
  const std::string not_called = "are not called for a WebSocket URL";
  auto over_ws = [](stampede::LoadTestOptions& o) { o.url = "ws" + o.url.substr(4); };
  throws(
      [&](auto& o) {
        over_ws(o);
        o.status_callback = [](const std::string&, const stampede::RequestResult&,
                               const stampede::LatencyInfo&) {};
      },
      not_called);
  throws(
      [&](auto& o) {
        over_ws(o);
        o.request_generator = [](std::uint64_t, stampede::GeneratedRequest&) {};
      },
      not_called);
  throws(
      [&](auto& o) {
        over_ws(o);
        o.index_param = "IDX";
        o.body = "IDX";
        o.index_param_callback = [](std::uint64_t) { return "x"; };
      },
      not_called);
  EXPECT_NE(served(server).find("\"served\":0,"), std::string::npos) << served(server);
}

TEST(ApiLoadTest, JsonBodyIsPostedAsJson) {
  stampede::testing::ScriptedServer peer([](std::uint64_t, const std::string& request) {
    return stampede::testing::ok_reply(request);
  });
  stampede::LoadTestOptions o;
  o.url = peer.url("/");
  o.max_requests = 3;
  o.concurrency = 1;
  o.timeout = std::chrono::seconds(10);
  o.json_body = R"({"user":"ada","n":[1,2]})";
  const stampede::Result r = stampede::load_test(o);
  EXPECT_EQ(r.total_requests, 3u);
  EXPECT_EQ(r.total_errors, 0u);
  const std::string request = peer.last_request();
  EXPECT_EQ(request.rfind("POST / HTTP/1.1\r\n", 0), 0u) << request;
  EXPECT_NE(request.find("Content-Type: application/json\r\n"), std::string::npos) << request;
  EXPECT_EQ(request.substr(request.size() - 24), R"({"user":"ada","n":[1,2]})") << request;
}

TEST(ApiLoadTest, ServerOptionsAreChecked) {
  stampede::ServerOptions o;
  o.error_status = 42;
  EXPECT_THROW(stampede::start_server(o), stampede::Error);
}

TEST(ApiLoadTest, BackgroundTestStops) {
  stampede::ServerHandle server = stampede::start_server({});
  stampede::LoadTestOptions o = options_for(server);
  o.max_seconds = 60;
  std::mutex mutex;
  std::condition_variable cv;
  std::uint64_t seen = 0;
  o.status_callback = [&](const std::string&, const stampede::RequestResult&,
                          const stampede::LatencyInfo&) {
    std::lock_guard lock(mutex);
    if (++seen == 100) cv.notify_all();
  };
  stampede::LoadTest test = stampede::start_load_test(o);
  {
    std::unique_lock lock(mutex);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(20), [&] { return seen >= 100; }));
  }
  test.stop();
  const stampede::Result r = test.wait();
  EXPECT_TRUE(r.interrupted);
  EXPECT_GE(r.total_requests, 100u);
  EXPECT_LT(r.total_time_seconds, 30.0);
  EXPECT_THROW(test.wait(), stampede::Error);
}

TEST(ApiLoadTest, ServerCloses) {
  stampede::ServerHandle server = stampede::start_server({});
  stampede::LoadTestOptions o = options_for(server);
  o.max_requests = 10;
  EXPECT_EQ(stampede::load_test(o).total_errors, 0u);
  server.close();
  server.close();  // idempotent
  o.max_requests = 3;
  o.keep_alive = false;
  const stampede::Result r = stampede::load_test(o);
  EXPECT_EQ(r.error_codes.at("ECONNREFUSED"), 3u);
}

}  // namespace
