// MetricsEndpoint against hostile clients: a wrong path, a wrong method, a huge head, a
// malformed one, a slowloris (which must not keep a scrape waiting), too many connections.
#include "metrics/endpoint.h"

#include <gtest/gtest.h>

#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "support/loopback.h"
#include "support/until_close.h"

namespace stampede::metrics {
namespace {

using namespace std::chrono_literals;

std::unique_ptr<MetricsEndpoint> start_endpoint(EndpointOptions options = {},
                                                std::atomic<int>* renders = nullptr) {
  auto address = parse_listen_address("--metrics-listen", "127.0.0.1:0");
  EXPECT_TRUE(address.ok());
  options.address = *address;
  auto endpoint = MetricsEndpoint::start(
      options,
      [renders] {
        if (renders) renders->fetch_add(1);
        return std::string(
            "# HELP stampede_x_total X.\n# TYPE stampede_x_total counter\n"
            "stampede_x_total 7\n");
      },
      "--metrics-listen");
  EXPECT_TRUE(endpoint.ok()) << (endpoint.ok() ? "" : endpoint.error().message);
  return endpoint.ok() ? std::move(endpoint).value() : nullptr;
}

// Sends `request` and reads until the endpoint closes (bounded by 2 s); "" when refused.
std::string round_trip(std::uint16_t port, std::string_view request) {
  return testing::exchange_until_close(port, request, 2s);
}

// A scrape of /metrics with `method` (GET or HEAD): the whole response.
std::string scrape(const MetricsEndpoint& endpoint, std::string_view method) {
  return round_trip(endpoint.address().port(),
                    std::string(method) + " /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
}

std::string status_line(const std::string& response) {
  return response.substr(0, response.find("\r\n"));
}

TEST(MetricsEndpoint, ServesMetricsInTextFormat004) {
  auto endpoint = start_endpoint();
  ASSERT_TRUE(endpoint);
  const std::string r = scrape(*endpoint, "GET");
  EXPECT_EQ(status_line(r), "HTTP/1.1 200 OK");
  EXPECT_NE(r.find("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"),
            std::string::npos);
  EXPECT_NE(r.find("Connection: close\r\n"), std::string::npos);
  EXPECT_NE(r.find("\r\n\r\n# HELP stampede_x_total"), std::string::npos);
  EXPECT_EQ(endpoint->scrapes(), 1u);
}

TEST(MetricsEndpoint, HeadHasNoBody) {
  auto endpoint = start_endpoint();
  ASSERT_TRUE(endpoint);
  const std::string r = scrape(*endpoint, "HEAD");
  EXPECT_EQ(status_line(r), "HTTP/1.1 200 OK");
  EXPECT_EQ(r.substr(r.find("\r\n\r\n") + 4), "");
}

TEST(MetricsEndpoint, WrongPathIs404AndWrongMethodIs405) {
  auto endpoint = start_endpoint();
  ASSERT_TRUE(endpoint);
  const std::uint16_t port = endpoint->address().port();
  EXPECT_EQ(status_line(round_trip(port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")),
            "HTTP/1.1 404 Not Found");
  EXPECT_EQ(status_line(round_trip(port, "GET /metricsx HTTP/1.1\r\nHost: x\r\n\r\n")),
            "HTTP/1.1 404 Not Found");
  const std::string post =
      round_trip(port, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(status_line(post), "HTTP/1.1 405 Method Not Allowed");
  EXPECT_NE(post.find("Allow: GET, HEAD\r\n"), std::string::npos);
  EXPECT_EQ(endpoint->scrapes(), 0u);
}

TEST(MetricsEndpoint, HugeHeadIs431AndMalformedIs400) {
  EndpointOptions options;
  options.max_request_bytes = 1024;
  auto endpoint = start_endpoint(options);
  ASSERT_TRUE(endpoint);
  const std::uint16_t port = endpoint->address().port();
  const std::string huge =
      "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(64 * 1024, 'a') + "\r\n\r\n";
  EXPECT_EQ(status_line(round_trip(port, huge)), "HTTP/1.1 431 Request Header Fields Too Large");
  EXPECT_EQ(status_line(round_trip(port, "GET /metrics HTTP/1.1\r\nHost x\r\n\r\n")),
            "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(status_line(round_trip(port, "GET /metrics HTTP/2.5\r\nHost: x\r\n\r\n")),
            "HTTP/1.1 505 HTTP Version Not Supported");
  EXPECT_EQ(status_line(round_trip(port, "\x01\x02\x03 garbage\r\n\r\n")),
            "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(endpoint->scrapes(), 0u);
}

TEST(MetricsEndpoint, SlowlorisIsClosedAtTheTimeoutAndNeverDelaysAScrape) {
  EndpointOptions options;
  options.request_timeout = 300ms;
  auto endpoint = start_endpoint(options);
  ASSERT_TRUE(endpoint);
  const std::uint16_t port = endpoint->address().port();
  net::Fd slow = testing::connect_loopback(port);
  ASSERT_TRUE(slow);
  ASSERT_TRUE(testing::send_all(slow.get(), "GET /metr"));
  // A scrape while the slow head is pending is answered at once.
  const auto before = std::chrono::steady_clock::now();
  EXPECT_EQ(status_line(scrape(*endpoint, "GET")), "HTTP/1.1 200 OK");
  EXPECT_LT(std::chrono::steady_clock::now() - before, 250ms);
  // The slow one is closed at its deadline, without an answer.
  ASSERT_TRUE(testing::wait_readable(slow.get(), 2s));
  char c = 0;
  EXPECT_EQ(testing::recv_some(slow.get(), &c, 1), 0);
}

TEST(MetricsEndpoint, ConnectionsPastTheCapAreClosed) {
  EndpointOptions options;
  options.max_clients = 2;
  options.request_timeout = 1500ms;
  auto endpoint = start_endpoint(options);
  ASSERT_TRUE(endpoint);
  const std::uint16_t port = endpoint->address().port();
  std::vector<net::Fd> held;
  for (int i = 0; i < 2; ++i) {
    held.push_back(testing::connect_loopback(port));
    ASSERT_TRUE(testing::send_all(held.back().get(), "GET"));
  }
  // Both slots are held: a third connection is closed without an answer...
  EXPECT_EQ(scrape(*endpoint, "GET"), "");
  // ...and once the held ones are gone, scrapes are answered again.
  held.clear();
  std::string answer;
  for (int i = 0; i < 50 && answer.empty(); ++i)
    answer = scrape(*endpoint, "GET");
  EXPECT_EQ(status_line(answer), "HTTP/1.1 200 OK");
}

TEST(MetricsEndpoint, BindFailureIsOneLineNamingTheOption) {
  auto first = start_endpoint();
  ASSERT_TRUE(first);
  EndpointOptions options;
  options.address = first->address();
  auto second = MetricsEndpoint::start(
      options, [] { return std::string(); }, "--metrics-listen");
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().message.rfind("--metrics-listen: cannot listen on 127.0.0.1:", 0), 0u)
      << second.error().message;
  EXPECT_EQ(second.error().message.find('\n'), std::string::npos);
}

TEST(MetricsEndpoint, AddressWithoutPortIsRefused) {
  auto a = parse_listen_address("--metrics-listen", "localhost");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().message, "--metrics-listen: expected host:port, got 'localhost'");
}

}  // namespace
}  // namespace stampede::metrics
