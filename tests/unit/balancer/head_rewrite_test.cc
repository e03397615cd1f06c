#include "balancer/head_rewrite.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace stampede::balancer {
namespace {

std::string request_head(std::vector<http::Header> headers, bool drop_expect = false) {
  Buffer out;
  EXPECT_TRUE(append_request_head(
      out, RequestHeadInput{"GET", "/p?q=1", headers, "10.0.0.9", "http", drop_expect}));
  return std::string(out.view());
}

TEST(RequestHead, DropsHopByHopAndAddsForwarded) {
  std::string head = request_head({{"Host", "example"},
                                   {"Connection", "keep-alive, X-Secret"},
                                   {"Keep-Alive", "timeout=5"},
                                   {"X-Secret", "1"},
                                   {"TE", "trailers"},
                                   {"Trailer", "x"},
                                   {"Upgrade", "websocket"},
                                   {"Proxy-Connection", "keep-alive"},
                                   {"Accept", "*/*"},
                                   {"X-Forwarded-Proto", "https"}});
  EXPECT_EQ(head,
            "GET /p?q=1 HTTP/1.1\r\nHost: example\r\nAccept: */*\r\n"
            "X-Forwarded-For: 10.0.0.9\r\nX-Forwarded-Proto: http\r\n\r\n");
}

TEST(RequestHead, AlwaysHttp11WithAHost) {
  std::vector<http::Header> none;
  Buffer out;
  append_request_head(
      out, RequestHeadInput{"GET", "/old", none, "10.0.0.9", "http", false, false, true});
  EXPECT_EQ(std::string(out.view()),
            "GET /old HTTP/1.1\r\nHost: \r\n"
            "X-Forwarded-For: 10.0.0.9\r\nX-Forwarded-Proto: http\r\n\r\n");
  std::vector<http::Header> host = {{"host", "h"}};
  Buffer with_host;
  append_request_head(
      with_host, RequestHeadInput{"GET", "/old", host, "10.0.0.9", "http", false, false, true});
  EXPECT_EQ(with_host.view().find("Host: \r\n"), std::string::npos);
  EXPECT_NE(with_host.view().find("host: h\r\n"), std::string::npos);
}

TEST(RequestHead, AppendsToAnExistingForwardedFor) {
  std::string head =
      request_head({{"X-Forwarded-For", "1.2.3.4"}, {"Host", "h"}, {"x-forwarded-for", "5.6.7.8"}});
  EXPECT_NE(head.find("X-Forwarded-For: 1.2.3.4, 5.6.7.8, 10.0.0.9\r\n"), std::string::npos);
  EXPECT_EQ(head.find("x-forwarded-for"), std::string::npos);
}

TEST(RequestHead, ConnectionCannotRemoveFraming) {
  std::string head = request_head({{"Host", "h"},
                                   {"Connection", "content-length, host, transfer-encoding"},
                                   {"Content-Length", "5"}});
  EXPECT_NE(head.find("Host: h\r\n"), std::string::npos);
  EXPECT_NE(head.find("Content-Length: 5\r\n"), std::string::npos);
}

TEST(RequestHead, ExpectDroppedOnlyWhenAnswered) {
  EXPECT_NE(request_head({{"Expect", "100-continue"}}).find("Expect"), std::string::npos);
  EXPECT_EQ(request_head({{"Expect", "100-continue"}}, true).find("Expect"), std::string::npos);
}

std::string response_head(std::string_view raw, ResponseHeadOptions opt) {
  Buffer out;
  if (!append_response_head(out, raw, opt)) return "<invalid>";
  return std::string(out.view());
}

TEST(ResponseHead, AddsBackendAndDropsHopByHop) {
  std::string raw =
      "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: keep-alive, X-Hop\r\n"
      "Keep-Alive: timeout=5\r\nX-Hop: 1\r\nx-backend: forged\r\nContent-Length: 2\r\n\r\n";
  EXPECT_EQ(response_head(raw, {"b", true, false}),
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n"
            "x-backend: b\r\n\r\n");
  EXPECT_EQ(response_head(raw, {"b", false, false}),
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n"
            "x-backend: b\r\nConnection: close\r\n\r\n");
  EXPECT_NE(response_head(raw, {"b", true, true}).find("Connection: keep-alive\r\n"),
            std::string::npos);
}

TEST(ResponseHead, InterimResponsesAreDropped) {
  std::string raw =
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
      "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n";
  EXPECT_EQ(response_head(raw, {"c", true, false}),
            "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\nx-backend: c\r\n\r\n");
}

TEST(ResponseHead, DechunkDropsTransferEncoding) {
  std::string raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\n\r\n";
  EXPECT_EQ(response_head(raw, {"c", false, true, false, true}),
            "HTTP/1.1 200 OK\r\nX-A: 1\r\nx-backend: c\r\nConnection: close\r\n\r\n");
}

// A backend's "HTTP/1.0 200" relayed as it came told a client whose connection the balancer
// kept that the connection would end after it: the next response on it was "data after close"
// (found by the balancer_e2e fuzz target). The balancer sends its own version.
TEST(ResponseHead, StatusLineSaysOurVersion) {
  EXPECT_EQ(response_head("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n", {"a", true, false}),
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nx-backend: a\r\n\r\n");
  EXPECT_EQ(response_head("HTTP/1.0 404 \r\n\r\n", {"a", false, false}),
            "HTTP/1.1 404 \r\nx-backend: a\r\nConnection: close\r\n\r\n");
}

TEST(ResponseHead, RejectsGarbage) {
  EXPECT_EQ(response_head("SMTP ready\r\n\r\n", {"a", true, false}), "<invalid>");
  EXPECT_EQ(response_head("HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", {"a", true, false}),
            "<invalid>");
}

// "x-0, ..., x-(n-1)"
std::string options_list(std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i)
    out += (i == 0 ? "x-" : ", x-") + std::to_string(i);
  return out;
}

// More Connection options than http::ConnectionTokens keeps: the head is refused whole (the
// caller answers 400 / 502), never relayed with the fields past the bound as end to end.
TEST(HeadRewrite, MoreConnectionOptionsThanTheBoundRefuseTheHead) {
  const std::string most = options_list(http::ConnectionTokens::kMax);
  const std::string over = options_list(http::ConnectionTokens::kMax + 1);
  const std::string last = "x-" + std::to_string(http::ConnectionTokens::kMax);
  std::vector<http::Header> headers = {{"Host", "h"}, {"Connection", most}, {last, "1"}};
  EXPECT_NE(request_head(headers).find(last + ": 1\r\n"), std::string::npos);
  headers[1].value = over;
  Buffer out;
  EXPECT_FALSE(append_request_head(out, RequestHeadInput{"GET", "/", headers, "1.1.1.1"}));
  EXPECT_TRUE(out.empty());

  const std::string fields = "\r\nx-0: 1\r\n" + last + ": 1\r\n\r\n";
  EXPECT_EQ(response_head("HTTP/1.1 200 OK\r\nConnection: " + most + fields, {"a", true, false}),
            "HTTP/1.1 200 OK\r\n" + last + ": 1\r\nx-backend: a\r\n\r\n");
  EXPECT_EQ(response_head("HTTP/1.1 200 OK\r\nConnection: " + over + fields, {"a", true, false}),
            "<invalid>");
  EXPECT_EQ(final_response_head("HTTP/1.1 200 OK\r\nConnection: " + over + fields).status, -1);
}

TEST(BufferTest, GrowsSlidesAndTruncates) {
  Buffer b;
  std::string big(10000, 'x');
  b.append(big);
  b.consume(9990);
  EXPECT_EQ(b.size(), 10u);
  char* p = b.tail(100000);
  EXPECT_GE(b.tail_room(), 100000u);
  std::memcpy(p, "yz", 2);
  b.commit(2);
  EXPECT_EQ(b.view(), std::string(10, 'x') + "yz");
  b.truncate(3);
  EXPECT_EQ(b.view(), "xxx");
  b.consume(3);
  EXPECT_TRUE(b.empty());
}

}  // namespace
}  // namespace stampede::balancer

namespace stampede::balancer {
namespace {

TEST(RequestHead, UpgradeKeptOnlyWhenTunnelling) {
  std::vector<http::Header> headers = {
      {"Host", "h"}, {"Upgrade", "websocket"}, {"Connection", "keep-alive, Upgrade"}};
  Buffer tunnel;
  append_request_head(tunnel,
                      RequestHeadInput{"GET", "/ws", headers, "1.1.1.1", "http", false, true});
  EXPECT_EQ(tunnel.view(),
            "GET /ws HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nX-Forwarded-For: 1.1.1.1\r\n"
            "X-Forwarded-Proto: http\r\nConnection: upgrade\r\n\r\n");
  Buffer plain;
  append_request_head(plain, RequestHeadInput{"GET", "/ws", headers, "1.1.1.1"});
  EXPECT_EQ(plain.view().find("pgrade"), std::string_view::npos);
}

}  // namespace
}  // namespace stampede::balancer
