// The bound on Connection options (http/connection_tokens.h) through the balancer: a head whose
// Connection fields name exactly kMax options is relayed without the fields they name; one
// naming kMax + 1 is refused whole, never forwarded with its last hop-by-hop field treated as
// end to end: a request gets 400 and a closed connection (the backend sees nothing), a response
// gets the client a 502 counted as a bad response.
#include <gtest/gtest.h>

#include <string>

#include "http/connection_tokens.h"
#include "lb_support.h"

namespace stampede::balancer::testing {
namespace {

constexpr std::size_t kMax = http::ConnectionTokens::kMax;

// "Connection: x-0, ..., x-(n-1)\r\n" and the fields it names, "X-0: 1\r\n"...
std::string named_fields(std::size_t n) {
  std::string list;
  std::string fields;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string name = "x-" + std::to_string(i);
    list += (i == 0 ? "" : ", ") + name;
    fields += name + ": 1\r\n";
  }
  return "Connection: " + list + "\r\n" + fields;
}

TEST(ConnectionOptions, RequestNamingTheMostIsRelayedWithoutTheNamedFields) {
  EchoBehindBalancer f;
  ASSERT_TRUE(f.ok());
  Client client(f.port());
  const auto r = client.get("/max", named_fields(kMax) + "X-Keep: yes\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  const auto seen = f.echo.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_NE(seen[0].find("X-Keep: yes\r\n"), std::string::npos) << seen[0];
  EXPECT_EQ(seen[0].find("x-0:"), std::string::npos) << seen[0];
  EXPECT_EQ(seen[0].find("x-" + std::to_string(kMax - 1) + ":"), std::string::npos) << seen[0];
}

TEST(ConnectionOptions, RequestNamingOneMoreIsRefused400) {
  EchoBehindBalancer f;
  ASSERT_TRUE(f.ok());
  Client client(f.port());
  const auto r = client.get("/over", named_fields(kMax + 1));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(r->body, "{\"error\":\"bad request\"}");
  EXPECT_EQ(r->header("connection"), "close");
  EXPECT_TRUE(client.closed_by_peer());
  EXPECT_EQ(f.echo.request_count(), 0u);
}

TEST(ConnectionOptions, ResponseNamingTheMostIsRelayedWithoutTheNamedFields) {
  EchoBehindBalancer f({.name = "e", .extra_headers = named_fields(kMax)});
  ASSERT_TRUE(f.ok());
  const auto r = http_get(f.port(), "/max");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("x-backend"), "e");
  EXPECT_EQ(r->header("x-0"), "");
  EXPECT_EQ(r->header("x-" + std::to_string(kMax - 1)), "");
}

TEST(ConnectionOptions, ResponseNamingOneMoreIsA502) {
  EchoBehindBalancer f({.name = "e", .extra_headers = named_fields(kMax + 1)});
  ASSERT_TRUE(f.ok());
  const auto r = http_get(f.port(), "/over");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 502);
  EXPECT_EQ(r->body, "{\"error\":\"bad backend response\"}");
  EXPECT_EQ(r->header("x-" + std::to_string(kMax)), "");
  EXPECT_EQ(backend_stats(*f.lb, "e")["bad_responses"].get<std::uint64_t>(), 1u);
}

}  // namespace
}  // namespace stampede::balancer::testing
