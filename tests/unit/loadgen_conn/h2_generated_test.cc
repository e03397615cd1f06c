// H2Generated: a hook's HTTP/1.1 request bytes made into HTTP/2 fields (pure: bytes in, fields
// out), and every request it does not send, under its name: garbage, empty, truncated, two
// requests, over the size limit, chunked, upgrade, an absolute URL to another host.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "http/connection_tokens.h"
#include "loadgen/h2_generated.h"

namespace stampede::loadgen {
namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

struct Translated {
  std::string error;  // empty: translated
  Fields fields;
  std::string body;
};

Translated translate_with(H2Generated& generated, const std::string& bytes) {
  H2Fields out;
  Translated t;
  t.error = std::string(generated.translate(bytes, out));
  std::vector<nghttp2_nv> nv;
  out.fields_into(nv);
  for (const nghttp2_nv& f : nv) {
    t.fields.emplace_back(std::string(reinterpret_cast<const char*>(f.name), f.namelen),
                          std::string(reinterpret_cast<const char*>(f.value), f.valuelen));
  }
  t.body = out.body;
  return t;
}

Translated translate(const std::string& bytes) {
  H2Generated generated("http", "run.test:8080");
  return translate_with(generated, bytes);
}

TEST(H2Generated, AGetBecomesPseudoHeadersAndLowerCasedFieldsWithoutConnectionOnes) {
  const Translated t = translate(
      "GET /a/b?c=1 HTTP/1.1\r\nHost: api.test\r\nX-Request-Id: 7\r\nConnection: keep-alive, "
      "X-Hop\r\nX-Hop: 1\r\nKeep-Alive: timeout=5\r\nProxy-Connection: x\r\nTE: gzip\r\n"
      "Accept: */*\r\n\r\n");
  EXPECT_EQ(t.error, "");
  EXPECT_EQ(t.fields, (Fields{{":method", "GET"},
                              {":scheme", "http"},
                              {":authority", "api.test"},
                              {":path", "/a/b?c=1"},
                              {"x-request-id", "7"},
                              {"accept", "*/*"}}));
  EXPECT_EQ(t.body, "");
}

TEST(H2Generated, APostKeepsItsBodyAndContentLengthAndTeTrailers) {
  const Translated t = translate(
      "POST /items HTTP/1.1\r\nHost: api.test\r\nTE: trailers\r\nContent-Type: text/plain\r\n"
      "Content-Length: 11\r\n\r\nhello world");
  EXPECT_EQ(t.error, "");
  EXPECT_EQ(t.fields, (Fields{{":method", "POST"},
                              {":scheme", "http"},
                              {":authority", "api.test"},
                              {":path", "/items"},
                              {"te", "trailers"},
                              {"content-type", "text/plain"},
                              {"content-length", "11"}}));
  EXPECT_EQ(t.body, "hello world");
}

TEST(H2Generated, AnAbsoluteTargetGivesAuthorityAndPathWhenItIsTheHosts) {
  struct Case {
    const char* target;
    const char* path;
  };
  for (const Case& c : {Case{"http://api.test/p?q=1", "/p?q=1"}, Case{"http://API.test", "/"},
                        Case{"http://api.test?q", "/?q"}}) {
    const Translated t =
        translate(std::string("GET ") + c.target + " HTTP/1.1\r\nHost: api.test\r\n\r\n");
    ASSERT_EQ(t.error, "") << c.target;
    EXPECT_EQ(t.fields.at(2).second, c.target[7] == 'A' ? "API.test" : "api.test");
    EXPECT_EQ(t.fields.at(3), (std::pair<std::string, std::string>{":path", c.path})) << c.target;
    EXPECT_EQ(t.fields.size(), 4u);  // host is :authority
  }
}

TEST(H2Generated, OptionsStarAndAnHttp10RequestWithoutHost) {
  Translated t = translate("OPTIONS * HTTP/1.1\r\nHost: api.test\r\n\r\n");
  ASSERT_EQ(t.error, "");
  EXPECT_EQ(t.fields.at(3).second, "*");
  t = translate("GET /x HTTP/1.0\r\n\r\n");
  ASSERT_EQ(t.error, "");
  EXPECT_EQ(t.fields.at(2).second, "run.test:8080");  // the run's URL's
}

TEST(H2Generated, WhatHttp2CannotCarryIsNotForHttp2) {
  const char* cases[] = {
      "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
      "GET / HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n",
      "CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n",
      "GET * HTTP/1.1\r\nHost: a\r\n\r\n",
      "GET http://other.test/ HTTP/1.1\r\nHost: a\r\n\r\n",
      "GET https://a/ HTTP/1.1\r\nHost: a\r\n\r\n",
      "GET http://u@a/ HTTP/1.1\r\nHost: a\r\n\r\n",
  };
  for (const char* bytes : cases) {
    EXPECT_EQ(translate(bytes).error, kRequestNotForH2) << bytes;
  }
}

TEST(H2Generated, BytesThatAreNotExactlyOneRequestAreMalformed) {
  const std::string cases[] = {
      "",
      "garbage\x01\x02",
      "GET / HTTP/1.1\r\nHost: a\r\n",                                       // the head cut short
      "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc",         // the body cut short
      "GET / HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",  // two requests
      "GET / HTTP/1.1\r\n\r\n",                                              // no Host
      "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
      "GET / HTTP/1.1\nHost: a\n\n",  // bare LF
      "GET / HTTP/1.1\r\nHost: a\r\nBad Name: x\r\n\r\n",
      "GET / HTTP/2.0\r\nHost: a\r\n\r\n",
  };
  for (const std::string& bytes : cases) {
    EXPECT_EQ(translate(bytes).error, kRequestMalformed) << bytes;
  }
}

// A head naming more Connection options than http::ConnectionTokens keeps is hostile: sending
// it without the first kMax named fields but with the rest would be a guess. Exactly kMax go,
// without every field they name; one more is malformed, in one field or across two.
TEST(H2Generated, MoreConnectionOptionsThanTheBoundAreMalformed) {
  constexpr std::size_t kMax = http::ConnectionTokens::kMax;
  std::string list;
  std::string named;
  for (std::size_t i = 0; i < kMax; ++i) {
    list += (i == 0 ? "x-" : ", x-") + std::to_string(i);
    named += "X-" + std::to_string(i) + ": 1\r\n";
  }
  const std::string head = "GET / HTTP/1.1\r\nHost: a\r\n";
  const Translated most = translate(head + "Connection: " + list + "\r\n" + named + "\r\n");
  EXPECT_EQ(most.error, "");
  EXPECT_EQ(most.fields,
            (Fields{{":method", "GET"}, {":scheme", "http"}, {":authority", "a"}, {":path", "/"}}));
  EXPECT_EQ(translate(head + "Connection: " + list + ", x-over\r\n" + named + "\r\n").error,
            kRequestMalformed);
  EXPECT_EQ(
      translate(head + "Connection: " + list + "\r\nConnection: x-over\r\n" + named + "\r\n").error,
      kRequestMalformed);
}

TEST(H2Generated, AHeadOverTheLimitIsTooLarge) {
  const std::string big(kMaxGeneratedHead, 'x');
  EXPECT_EQ(translate("GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + big + "\r\n\r\n").error,
            kRequestTooLarge);
  EXPECT_EQ(translate("GET /" + big + " HTTP/1.1\r\nHost: a\r\n\r\n").error, kRequestTooLarge);
  // Just under it goes.
  const std::string under(kMaxGeneratedHead - 100, 'x');
  EXPECT_EQ(translate("GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + under + "\r\n\r\n").error, "");
}

// One translator, many requests: nothing of one is left in the next, a failure included.
TEST(H2Generated, EachRequestStartsAfresh) {
  H2Generated generated("https", "run.test");
  Translated t = translate_with(
      generated, "POST /a HTTP/1.1\r\nHost: a\r\nX-One: 1\r\nContent-Length: 3\r\n\r\nabc");
  ASSERT_EQ(t.error, "");
  EXPECT_EQ(t.fields.at(1).second, "https");
  EXPECT_EQ(translate_with(generated, "nonsense").error, kRequestMalformed);
  t = translate_with(generated, "GET /b HTTP/1.1\r\nHost: b\r\n\r\n");
  ASSERT_EQ(t.error, "");
  EXPECT_EQ(
      t.fields,
      (Fields{{":method", "GET"}, {":scheme", "https"}, {":authority", "b"}, {":path", "/b"}}));
  EXPECT_EQ(t.body, "");
}

}  // namespace
}  // namespace stampede::loadgen
