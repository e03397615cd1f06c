// h2_heads.h: an HTTP/2 request's fields as an HTTP/1.1 head for a backend, and a backend's
// HTTP/1.1 response head as the fields of a HEADERS frame (RFC 9113 8.2.2, 8.2.3, 8.3.1).
#include "balancer/h2_heads.h"

#include <gtest/gtest.h>

#include <string>

namespace stampede::balancer {
namespace {

std::string head_of(const H2RequestFields& f, bool chunked = false) {
  Buffer out;
  f.append_head(out, "10.0.0.9", "http", chunked);
  return std::string(out.view());
}

TEST(H2Heads, AuthorityBecomesHostAndPseudoFieldsStayOut) {
  H2RequestFields f;
  f.add(":method", "GET");
  f.add(":scheme", "http");
  f.add(":authority", "example.test:8080");
  f.add(":path", "/a?b=1");
  f.add("accept", "*/*");
  EXPECT_EQ(head_of(f),
            "GET /a?b=1 HTTP/1.1\r\nHost: example.test:8080\r\naccept: */*\r\n"
            "X-Forwarded-For: 10.0.0.9\r\nX-Forwarded-Proto: http\r\n\r\n");
}

TEST(H2Heads, AHostFieldWinsOverAuthority) {
  H2RequestFields f;
  f.add(":method", "GET");
  f.add(":authority", "a.test");
  f.add(":path", "/");
  f.add("host", "b.test");
  const std::string head = head_of(f);
  EXPECT_NE(head.find("host: b.test\r\n"), std::string::npos) << head;
  EXPECT_EQ(head.find("a.test"), std::string::npos) << head;
}

TEST(H2Heads, CookiesAreJoinedAndHopByHopFieldsDropped) {
  H2RequestFields f;
  f.add(":method", "POST");
  f.add(":authority", "a.test");
  f.add(":path", "/");
  f.add("cookie", "a=1");
  f.add("te", "trailers");
  f.add("cookie", "b=2");
  f.add("x-forwarded-for", "1.2.3.4");
  const std::string head = head_of(f, true);
  EXPECT_NE(head.find("cookie: a=1; b=2\r\n"), std::string::npos) << head;
  EXPECT_EQ(head.find("te:"), std::string::npos) << head;
  EXPECT_NE(head.find("Transfer-Encoding: chunked\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("X-Forwarded-For: 1.2.3.4, 10.0.0.9\r\n"), std::string::npos) << head;
  EXPECT_EQ(f.value("cookie"), "a=1");
  EXPECT_FALSE(f.has("content-length"));
}

TEST(H2Heads, ResponseDropsConnectionSpecificFieldsAndAddsXBackend) {
  H2ResponseHead out;
  ASSERT_TRUE(translate_response_head(
      "HTTP/1.1 100 Continue\r\n\r\n"
      "HTTP/1.1 201 Created\r\nContent-Type: text/plain\r\nConnection: keep-alive, X-Hop\r\n"
      "Keep-Alive: timeout=5\r\nTransfer-Encoding: chunked\r\nX-Hop: 1\r\nx-backend: forged\r\n"
      "Set-Cookie:  s=1 \r\n\r\n",
      "b2", out));
  EXPECT_EQ(out.status, 201);
  ASSERT_EQ(out.fields.size(), 3u);
  EXPECT_EQ(out.fields[0].name, "content-type");
  EXPECT_EQ(out.fields[0].value, "text/plain");
  EXPECT_EQ(out.fields[1].name, "set-cookie");
  EXPECT_EQ(out.fields[1].value, "s=1");
  EXPECT_EQ(out.fields[2].name, "x-backend");
  EXPECT_EQ(out.fields[2].value, "b2");
}

TEST(H2Heads, AReusedResponseHeadHoldsOnlyTheLatestFields) {
  H2ResponseHead out;
  ASSERT_TRUE(translate_response_head(
      "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Long-Field-Name-Here: 1\r\n"
      "Cache-Control: no-cache\r\n\r\n",
      "a", out));
  ASSERT_TRUE(translate_response_head("HTTP/1.1 404 Not Found\r\nETag: \"x\"\r\n\r\n", "b", out));
  EXPECT_EQ(out.status, 404);
  ASSERT_EQ(out.fields.size(), 2u);
  EXPECT_EQ(out.fields[0].name, "etag");
  EXPECT_EQ(out.fields[0].value, "\"x\"");
  EXPECT_EQ(out.fields[1].name, "x-backend");
  EXPECT_EQ(out.fields[1].value, "b");
}

TEST(H2Heads, ASwitchingProtocolsOrMalformedHeadIsRefused) {
  H2ResponseHead out;
  EXPECT_FALSE(translate_response_head("HTTP/1.1 101 Switching Protocols\r\n\r\n", "b", out));
  EXPECT_FALSE(translate_response_head("garbage\r\n\r\n", "b", out));
  EXPECT_FALSE(translate_response_head("HTTP/1.1 200 OK\r\nno colon\r\n\r\n", "b", out));
}

}  // namespace
}  // namespace stampede::balancer
