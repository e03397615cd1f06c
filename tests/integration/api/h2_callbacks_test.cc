// The library's callbacks over HTTP/2 (LoadTestOptions::http2): the request generator, the
// content inspector and the status callback keep their HTTP/1.1 meaning on each stream, against
// the in-process test server's h2c.
#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <string>

#include "api_options.h"
#include "stampede/stampede.h"

namespace {

using stampede::testing::error_count;

TEST(ApiCallbacksHttp2, GeneratorInspectorAndStatusCallbackSeeEveryStream) {
  stampede::ServerOptions so;
  so.id = "h2";
  stampede::ServerHandle server = stampede::start_server(so);
  stampede::LoadTestOptions o = stampede::testing::options_for(server);
  o.cores = 1;
  o.concurrency = 2;
  o.http2 = true;
  o.streams = 4;
  o.max_requests = 100;
  o.collect_body = true;
  o.collect_headers = {"X-Instance"};
  // Odd requests ask for a 201 (the generated path arrives), each with a header of its own.
  o.request_generator = [](std::uint64_t index, stampede::GeneratedRequest& r) {
    if (index % 2 == 1) r.path = "/?status=201";
    r.headers.emplace_back("x-index", std::to_string(index));
  };
  o.content_inspector = [](stampede::RequestResult& r) {
    if (r.status_code == 201) r.custom_error = "ODD";
  };
  std::mutex mutex;
  std::set<std::uint64_t> indexes;
  std::uint64_t good = 0;
  o.status_callback = [&](const std::string& error, const stampede::RequestResult& r,
                          const stampede::LatencyInfo&) {
    std::lock_guard lock(mutex);
    indexes.insert(r.request_index);
    const bool header_ok = r.headers.size() == 1 && r.headers[0].second == "h2";
    const std::string want_error = r.request_index % 2 == 1 ? "ODD" : "";
    if (error == want_error && header_ok && r.body == "{\"id\":\"h2\"}" &&
        r.request_elapsed_ms > 0) {
      ++good;
    }
  };
  const stampede::Result r = stampede::load_test(o);
  EXPECT_EQ(r.total_requests, 100u);
  EXPECT_EQ(error_count(r, "ODD"), 50u);
  EXPECT_EQ(r.status_codes.at(200), 50u);
  EXPECT_EQ(good, 100u);
  EXPECT_EQ(indexes.size(), 100u);
}

// A transport failure over HTTP/2 reaches the status callback under its errno's name.
TEST(ApiCallbacksHttp2, StatusCallbackSeesTransportErrors) {
  stampede::ServerHandle server = stampede::start_server({});
  stampede::LoadTestOptions o = stampede::testing::options_for(server);
  server.close();
  o.cores = 1;
  o.concurrency = 1;
  o.http2 = true;
  o.max_requests = 3;
  std::mutex mutex;
  std::multiset<std::string> errors;
  o.status_callback = [&](const std::string& error, const stampede::RequestResult& r,
                          const stampede::LatencyInfo&) {
    std::lock_guard lock(mutex);
    if (r.status_code == 0) errors.insert(error);
  };
  const stampede::Result r = stampede::load_test(o);
  EXPECT_EQ(r.total_requests, 3u);
  EXPECT_EQ(errors, (std::multiset<std::string>{"ECONNREFUSED", "ECONNREFUSED", "ECONNREFUSED"}));
}

}  // namespace
