// h2_heads.h: an HTTP/2 request's fields as an HTTP/1.1 head for a backend, and a backend's
// HTTP/1.1 response head as the fields of a HEADERS frame (RFC 9113 8.2.2, 8.2.3, 8.3.1).
#include "balancer/h2_heads.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stampede::balancer {
namespace {

// A request's fields as HPACK would hand them over, in order.
H2RequestFields request_of(
    std::initializer_list<std::pair<std::string_view, std::string_view>> fields) {
  H2RequestFields f;
  for (const auto& [name, value] : fields)
    f.add(name, value);
  return f;
}

std::string head_of(const H2RequestFields& f, bool chunked = false) {
  Buffer out;
  f.append_head(out, "10.0.0.9", "http", chunked);
  return std::string(out.view());
}

using FieldList = std::vector<std::pair<std::string, std::string>>;

// A response head's fields, in order, as (name, value).
FieldList fields_of(const H2ResponseHead& head) {
  FieldList out;
  for (const H2Field& f : head.fields)
    out.emplace_back(f.name, f.value);
  return out;
}

TEST(H2Heads, AuthorityBecomesHostAndPseudoFieldsStayOut) {
  const H2RequestFields f = request_of({{":method", "GET"},
                                        {":scheme", "http"},
                                        {":authority", "example.test:8080"},
                                        {":path", "/a?b=1"},
                                        {"accept", "*/*"}});
  EXPECT_EQ(head_of(f),
            "GET /a?b=1 HTTP/1.1\r\nHost: example.test:8080\r\naccept: */*\r\n"
            "X-Forwarded-For: 10.0.0.9\r\nX-Forwarded-Proto: http\r\n\r\n");
}

TEST(H2Heads, AHostFieldWinsOverAuthority) {
  const H2RequestFields f = request_of(
      {{":method", "GET"}, {":authority", "a.test"}, {":path", "/"}, {"host", "b.test"}});
  const std::string head = head_of(f);
  EXPECT_NE(head.find("host: b.test\r\n"), std::string::npos) << head;
  EXPECT_EQ(head.find("a.test"), std::string::npos) << head;
}

TEST(H2Heads, CookiesAreJoinedAndHopByHopFieldsDropped) {
  const H2RequestFields f = request_of({{":method", "POST"},
                                        {":authority", "a.test"},
                                        {":path", "/"},
                                        {"cookie", "a=1"},
                                        {"te", "trailers"},
                                        {"cookie", "b=2"},
                                        {"x-forwarded-for", "1.2.3.4"}});
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
  EXPECT_EQ(
      fields_of(out),
      (FieldList{{"content-type", "text/plain"}, {"set-cookie", "s=1"}, {"x-backend", "b2"}}));
}

TEST(H2Heads, AReusedResponseHeadHoldsOnlyTheLatestFields) {
  H2ResponseHead out;
  ASSERT_TRUE(translate_response_head(
      "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Long-Field-Name-Here: 1\r\n"
      "Cache-Control: no-cache\r\n\r\n",
      "a", out));
  ASSERT_TRUE(translate_response_head("HTTP/1.1 404 Not Found\r\nETag: \"x\"\r\n\r\n", "b", out));
  EXPECT_EQ(out.status, 404);
  EXPECT_EQ(fields_of(out), (FieldList{{"etag", "\"x\""}, {"x-backend", "b"}}));
}

TEST(H2Heads, ASwitchingProtocolsOrMalformedHeadIsRefused) {
  H2ResponseHead out;
  EXPECT_FALSE(translate_response_head("HTTP/1.1 101 Switching Protocols\r\n\r\n", "b", out));
  EXPECT_FALSE(translate_response_head("garbage\r\n\r\n", "b", out));
  EXPECT_FALSE(translate_response_head("HTTP/1.1 200 OK\r\nno colon\r\n\r\n", "b", out));
}

}  // namespace
}  // namespace stampede::balancer
