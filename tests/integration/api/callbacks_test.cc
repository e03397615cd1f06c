// The per-request callbacks: status callback, content inspector, request generator and index
// parameter callback, against the in-process test server.
#include <gtest/gtest.h>

#include <functional>
#include <mutex>
#include <set>
#include <string>

#include "api_options.h"
#include "stampede/stampede.h"

namespace {

using stampede::testing::error_count;

// One worker unless a test asks for more; 4 keep-alive connections, a 10 s request timeout.
stampede::LoadTestOptions one_worker_options(const stampede::ServerHandle& server,
                                             const std::string& path = "/") {
  stampede::LoadTestOptions o = stampede::testing::options_for(server, path);
  o.cores = 1;
  return o;
}

// `requests` requests to `path` of `server`, its `param` replaced by `text(index)`.
stampede::Result run_with_index_text(const stampede::ServerHandle& server, const std::string& path,
                                     const std::string& param, std::uint64_t requests,
                                     std::function<std::string(std::uint64_t)> text) {
  stampede::LoadTestOptions o = one_worker_options(server, path);
  o.max_requests = requests;
  o.index_param = param;
  o.index_param_callback = std::move(text);
  return stampede::load_test(o);
}

TEST(ApiCallbacks, StatusCallbackSeesEveryRequest) {
  stampede::ServerOptions so;
  so.id = "a1";
  stampede::ServerHandle server = stampede::start_server(so);
  stampede::LoadTestOptions o = one_worker_options(server);
  o.max_requests = 100;
  o.cores = 2;
  o.collect_body = true;
  o.collect_headers = {"X-Instance"};
  std::mutex mutex;
  std::set<std::uint64_t> indexes;
  std::set<std::uint32_t> instances;
  std::uint64_t good = 0;
  o.status_callback = [&](const std::string& error, const stampede::RequestResult& r,
                          const stampede::LatencyInfo& info) {
    std::lock_guard lock(mutex);
    indexes.insert(r.request_index);
    instances.insert(r.instance_index);
    const bool header_ok =
        r.headers.size() == 1 && r.headers[0].first == "X-Instance" && r.headers[0].second == "a1";
    if (error.empty() && r.status_code == 200 && r.body == "{\"id\":\"a1\"}" && header_ok &&
        r.request_elapsed_ms > 0 && info.instance_requests > 0 && r.labels == nullptr) {
      ++good;
    }
  };
  const stampede::Result r = stampede::load_test(o);
  EXPECT_EQ(r.total_requests, 100u);
  EXPECT_EQ(good, 100u);
  EXPECT_EQ(indexes.size(), 100u);  // unique, and over two workers still exactly 1..100
  EXPECT_EQ(*indexes.begin(), 1u);
  EXPECT_EQ(*indexes.rbegin(), 100u);
  EXPECT_LE(*instances.rbegin(), 1u);
}

TEST(ApiCallbacks, StatusCallbackSeesTransportErrors) {
  stampede::ServerHandle server = stampede::start_server({});
  stampede::LoadTestOptions o = one_worker_options(server);
  server.close();
  o.max_requests = 4;
  o.keep_alive = false;
  std::mutex mutex;
  std::multiset<std::string> errors;
  o.status_callback = [&](const std::string& error, const stampede::RequestResult& r,
                          const stampede::LatencyInfo&) {
    std::lock_guard lock(mutex);
    errors.insert(error + "/" + std::to_string(r.status_code));
  };
  const stampede::Result r = stampede::load_test(o);
  EXPECT_EQ(errors.count("ECONNREFUSED/0"), 4u);
  EXPECT_EQ(error_count(r, "ECONNREFUSED"), 4u);
}

TEST(ApiCallbacks, ContentInspectorFailsResponses) {
  stampede::ServerHandle server = stampede::start_server({});
  stampede::LoadTestOptions o = one_worker_options(server, "/?status=500");
  o.max_requests = 50;
  std::mutex mutex;
  std::uint64_t custom_seen = 0;
  o.content_inspector = [](stampede::RequestResult& r) {
    if (r.request_index % 2 == 0) r.custom_error = "EVEN";
  };
  o.status_callback = [&](const std::string& error, const stampede::RequestResult& r,
                          const stampede::LatencyInfo&) {
    std::lock_guard lock(mutex);
    if (error == "EVEN" && r.request_index % 2 == 0) ++custom_seen;
  };
  const stampede::Result r = stampede::load_test(o);
  EXPECT_EQ(custom_seen, 25u);
  EXPECT_EQ(error_count(r, "EVEN"), 25u);
  EXPECT_EQ(error_count(r, "500"), 25u);  // the others keep their status as their error
  EXPECT_EQ(r.total_errors, 50u);
  EXPECT_EQ(r.status_codes.at(500), 50u);
}

TEST(ApiCallbacks, ContentInspectorFailsA200) {
  stampede::ServerHandle server = stampede::start_server({});
  stampede::LoadTestOptions o = one_worker_options(server);
  o.max_requests = 10;
  o.collect_body = true;
  o.content_inspector = [](stampede::RequestResult& r) {
    if (r.body != "nothing like this") r.custom_error = "WRONG_BODY";
  };
  const stampede::Result r = stampede::load_test(o);
  EXPECT_EQ(r.total_errors, 10u);
  EXPECT_EQ(error_count(r, "WRONG_BODY"), 10u);
  EXPECT_EQ(r.error_codes.size(), 1u);
}

TEST(ApiCallbacks, RequestGeneratorAndLabels) {
  stampede::ServerHandle server = stampede::start_server({});
  stampede::LoadTestOptions o = one_worker_options(server);
  o.max_requests = 60;
  o.request_generator = [](std::uint64_t index, stampede::GeneratedRequest& r) {
    // Every third request asks for a 404; every request carries its index as a label.
    if (index % 3 == 0) r.path = "/?status=404";
    if (index == 7) r.method = "HEAD";
    if (index == 8) {
      r.method = "POST";
      r.body = "{\"n\":8}";
    }
    r.labels["n"] = std::to_string(index);
  };
  std::mutex mutex;
  std::uint64_t labelled = 0, not_found = 0;
  o.status_callback = [&](const std::string& error, const stampede::RequestResult& r,
                          const stampede::LatencyInfo&) {
    std::lock_guard lock(mutex);
    if (r.labels && r.labels->at("n") == std::to_string(r.request_index)) ++labelled;
    if (error == "404" && r.request_index % 3 == 0) ++not_found;
  };
  const stampede::Result r = stampede::load_test(o);
  EXPECT_EQ(r.total_requests, 60u);
  EXPECT_EQ(labelled, 60u);
  EXPECT_EQ(not_found, 20u);
  EXPECT_EQ(error_count(r, "404"), 20u);
  EXPECT_EQ(r.total_errors, 20u);
}

TEST(ApiCallbacks, GeneratorFailuresAreCounted) {
  stampede::ServerHandle server = stampede::start_server({});
  stampede::LoadTestOptions o = one_worker_options(server);
  o.max_requests = 20;
  o.request_generator = [](std::uint64_t index, stampede::GeneratedRequest& r) {
    if (index == 3) throw std::runtime_error("no");
    if (index == 4) r.method = "BAD METHOD";
    if (index == 5) {  // a smuggled request: the framing rule refuses it, as for -H and Lua
      r.method = "POST";
      r.headers = {{"Content-Length", "5"}, {"Transfer-Encoding", "chunked"}};
      r.body = "0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n";
    }
    if (index == 6) r.headers = {{"content-length", "0"}};
    if (index == 7) r.headers = {{"Host", "a"}, {"host", "b"}};
  };
  const stampede::Result r = stampede::load_test(o);
  EXPECT_EQ(r.total_requests, 20u);
  EXPECT_EQ(error_count(r, "generator error"), 5u);
  EXPECT_EQ(r.total_errors, 5u);
}

// The index text goes into the path: CR LF there would add headers, so the rule refuses it.
TEST(ApiCallbacks, IndexTextCannotAddHeaders) {
  stampede::ServerHandle server = stampede::start_server({});
  const stampede::Result r =
      run_with_index_text(server, "/?n=IDX", "IDX", 10, [](std::uint64_t index) {
        return index == 2 ? std::string("1\r\nTransfer-Encoding: chunked") : std::to_string(index);
      });
  EXPECT_EQ(r.total_requests, 10u);
  EXPECT_EQ(error_count(r, "generator error"), 1u);
  EXPECT_EQ(r.total_errors, 1u);
}

TEST(ApiCallbacks, IndexParamCallback) {
  stampede::ServerHandle server = stampede::start_server({});
  const stampede::Result r = run_with_index_text(
      server, "/?status=CODE", "CODE", 40,
      [](std::uint64_t index) { return std::string(index % 4 == 0 ? "502" : "200"); });
  EXPECT_EQ(r.status_codes.at(200), 30u);
  EXPECT_EQ(error_count(r, "502"), 10u);
}

TEST(ApiCallbacks, ThrowingCallbackFailsItsRequest) {
  stampede::ServerHandle server = stampede::start_server({});
  stampede::LoadTestOptions o = one_worker_options(server);
  o.max_requests = 10;
  o.status_callback = [](const std::string&, const stampede::RequestResult& r,
                         const stampede::LatencyInfo&) {
    if (r.request_index == 5) throw std::runtime_error("oops");
  };
  const stampede::Result r = stampede::load_test(o);
  EXPECT_EQ(r.total_requests, 10u);
  EXPECT_EQ(error_count(r, "callback error"), 1u);
}

}  // namespace
