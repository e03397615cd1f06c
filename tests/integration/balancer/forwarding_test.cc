// Forwarding: bodies both ways byte for byte, head hygiene, pooling, pipelining, admin.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "lb_support.h"
#include "support/text_checks.h"

namespace stampede::balancer::testing {
namespace {

std::string pattern(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i)
    s[i] = static_cast<char>((i * 131 + i / 7) & 0xff);
  return s;
}

std::string chunked(const std::string& body, std::size_t piece) {
  std::string out;
  for (std::size_t i = 0; i < body.size(); i += piece) {
    std::string part = body.substr(i, piece);
    char size[32];
    std::snprintf(size, sizeof size, "%zX\r\n", part.size());
    out += size + part + "\r\n";
  }
  return out + "0\r\n\r\n";
}

using Fixture = EchoBehindBalancer;

TEST(Forwarding, LargeContentLengthBodyBothWays) {
  Fixture f;
  ASSERT_TRUE(f.lb);
  const std::string body = pattern(3 * 1024 * 1024 + 17);
  Client client(f.lb->port(), 20000ms);
  ASSERT_TRUE(client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                          std::to_string(body.size()) + "\r\n\r\n"));
  std::thread writer([&] { client.send(body); });
  auto r = client.read_response();
  writer.join();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body.size(), body.size());
  EXPECT_TRUE(r->body == body);
  auto seen = f.echo.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_TRUE(seen[0].size() > body.size() &&
              seen[0].compare(seen[0].size() - body.size(), body.size(), body) == 0);
}

TEST(Forwarding, ChunkedRequestAndResponseBodiesPassRaw) {
  Fixture f({.name = "e", .chunked = true});
  ASSERT_TRUE(f.lb);
  const std::string body = pattern(200000);
  const std::string wire = chunked(body, 7001);
  Client client(f.lb->port(), 20000ms);
  ASSERT_TRUE(
      client.send("POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + wire));
  auto r = client.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("transfer-encoding"), "chunked");
  // The backend echoes what it got after the head: the chunk framing, byte for byte.
  EXPECT_TRUE(r->body == wire);
  auto seen = f.echo.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].substr(seen[0].size() - wire.size()), wire);
}

TEST(Forwarding, HopByHopHeadersStayOnTheirHop) {
  Fixture f({.name = "e",
             .extra_headers = "Connection: X-Backend-Hop\r\nX-Backend-Hop: 1\r\n"
                              "Keep-Alive: timeout=5\r\nx-backend: forged\r\n"});
  ASSERT_TRUE(f.lb);
  Client client(f.lb->port());
  auto r = client.get("/h",
                      "Connection: keep-alive, X-Client-Hop\r\nX-Client-Hop: 1\r\n"
                      "Keep-Alive: 300\r\nTE: trailers\r\nUpgrade: websocket\r\n"
                      "Proxy-Connection: keep-alive\r\nX-Forwarded-For: 10.1.1.1\r\n"
                      "X-Keep: yes\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("x-backend"), "e");
  EXPECT_EQ(r->header("x-backend-hop"), "");
  EXPECT_EQ(r->header("keep-alive"), "");
  auto seen = f.echo.requests();
  ASSERT_EQ(seen.size(), 1u);
  const std::string& head = seen[0];
  for (const char* gone :
       {"X-Client-Hop", "Keep-Alive", "TE:", "Upgrade", "Proxy-Connection", "Connection"}) {
    EXPECT_EQ(head.find(gone), std::string::npos) << gone << " forwarded:\n" << head;
  }
  EXPECT_TRUE(stampede::testing::contains_all(
      head, {"X-Keep: yes\r\n", "X-Forwarded-For: 10.1.1.1, 127.0.0.1\r\n",
             "X-Forwarded-Proto: http\r\n", "Host: lb\r\n"}));
}

TEST(Forwarding, BackendConnectionsArePooled) {
  Fixture f;
  ASSERT_TRUE(f.lb);
  for (int c = 0; c < 5; ++c) {
    Client client(f.lb->port());
    for (int i = 0; i < 20; ++i) {
      auto r = client.get("/" + std::to_string(i));
      ASSERT_TRUE(r);
      EXPECT_EQ(r->status, 200);
    }
  }
  EXPECT_EQ(f.echo.request_count(), 100u);
  EXPECT_EQ(f.echo.connection_count(), 1u);  // sequential clients reuse one connection
}

TEST(Forwarding, PipelinedRequestsAnsweredInOrder) {
  Fixture f;
  ASSERT_TRUE(f.lb);
  Client client(f.lb->port());
  std::string burst;
  for (int i = 0; i < 10; ++i) {
    std::string body = "body-" + std::to_string(i);
    burst += "POST /" + std::to_string(i) +
             " HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
             body;
  }
  ASSERT_TRUE(client.send(burst));
  for (int i = 0; i < 10; ++i) {
    auto r = client.read_response();
    ASSERT_TRUE(r) << i;
    EXPECT_EQ(r->body, "body-" + std::to_string(i));
  }
}

TEST(Forwarding, ExpectContinueIsAnsweredByTheBalancer) {
  Fixture f;
  ASSERT_TRUE(f.lb);
  Client client(f.lb->port());
  ASSERT_TRUE(
      client.send("PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n"
                  "Expect: 100-continue\r\n\r\n"));
  ASSERT_TRUE(client.wait_for("HTTP/1.1 100 Continue\r\n\r\n"));
  ASSERT_TRUE(client.send("data"));
  auto r = client.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "data");
  auto seen = f.echo.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].find("Expect"), std::string::npos);
}

TEST(Forwarding, HeadAndHttp10) {
  Fixture f;
  ASSERT_TRUE(f.lb);
  Client client(f.lb->port());
  auto head = client.exchange("HEAD /x HTTP/1.1\r\nHost: x\r\n\r\n", /*head_request=*/true);
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  EXPECT_TRUE(head->body.empty());
  auto after = client.get("/after");  // the connection is still in step
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);

  Client old(f.lb->port());
  auto r = old.exchange("GET /old HTTP/1.0\r\n\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("connection"), "close");
  EXPECT_TRUE(old.closed_by_peer());
}

TEST(Forwarding, AdminEndpoints) {
  Fixture f;
  ASSERT_TRUE(f.lb);
  ASSERT_TRUE(http_get(f.lb->port(), "/"));
  auto stats = http_get(f.lb->port(), "/lb-stats");
  ASSERT_TRUE(stats);
  EXPECT_EQ(stats->status, 200);
  EXPECT_EQ(stats->header("connection"), "");  // HTTP/1.1 persists without saying so
  // An HTTP/1.0 client that asks to keep the connection is told it is kept, and it is.
  Client old(f.lb->port());
  auto kept = old.exchange("GET /lb-stats HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->status, 200);
  EXPECT_EQ(kept->header("connection"), "keep-alive");
  auto closing = old.exchange("GET /lb-stats HTTP/1.0\r\n\r\n");
  ASSERT_TRUE(closing);
  EXPECT_EQ(closing->header("connection"), "close");
  EXPECT_TRUE(old.closed_by_peer());
  auto j = nlohmann::json::parse(stats->body);
  EXPECT_EQ(j["strategy"], "rr");
  ASSERT_EQ(j["backends"].size(), 1u);
  auto& b = j["backends"][0];
  EXPECT_EQ(b["name"], "e");
  EXPECT_EQ(b["address"], "127.0.0.1:" + std::to_string(f.echo.port()));
  EXPECT_EQ(b["up"], true);
  EXPECT_EQ(b["sent"], 1);
  for (const char* key : {"in_flight", "failures", "retries", "latency_ms"}) {
    EXPECT_TRUE(b.contains(key)) << key;
  }
  EXPECT_TRUE(b["latency_ms"].contains("p99"));
  auto metrics = http_get(f.lb->port(), "/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  EXPECT_NE(metrics->body.find("stampede_lb_requests_sent_total{backend=\"e\""), std::string::npos);
  EXPECT_NE(metrics->body.find("stampede_lb_backend_up{backend=\"e\""), std::string::npos);
  EXPECT_EQ(f.echo.request_count(), 1u);  // the admin paths were not forwarded
}

TEST(Forwarding, AdminListenMovesTheEndpoints) {
  EchoBackend echo("e");
  ASSERT_TRUE(echo.start());
  BalancerConfig config = base_config({spec("e", echo.port())});
  config.admin_listen = "127.0.0.1:0";
  auto lb = start_balancer(config);
  ASSERT_TRUE(lb);
  ASSERT_NE(lb->admin_port(), 0);
  auto forwarded = http_get(lb->port(), "/lb-stats");
  ASSERT_TRUE(forwarded);
  EXPECT_EQ(forwarded->header("x-backend"), "e");
  EXPECT_EQ(echo.request_count(), 1u);
  auto admin = http_get(lb->admin_port(), "/lb-stats");
  ASSERT_TRUE(admin);
  EXPECT_EQ(admin->status, 200);
  EXPECT_EQ(nlohmann::json::parse(admin->body)["backends"][0]["sent"], 1);
  auto missing = http_get(lb->admin_port(), "/");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
}

}  // namespace
}  // namespace stampede::balancer::testing
