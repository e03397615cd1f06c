#include "loadgen/request.h"

#include <gtest/gtest.h>

#include <string>

#include "http/url.h"
#include "http/writer.h"
#include "support/text_checks.h"

namespace stampede::loadgen {
namespace {

http::Url url_of(const std::string& text) {
  auto u = http::parse_url(text);
  EXPECT_TRUE(u.ok()) << u.error().message;
  return u.ok() ? *u : http::Url{};
}

std::string format(const Config& config) {
  return http::format_request(make_request_spec(config, url_of(config.url)));
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

TEST(Request, LoadtestsDefaultHeaders) {
  Config c;
  c.url = "http://127.0.0.1:8080/path?q=1";
  EXPECT_EQ(format(c),
            "GET /path?q=1 HTTP/1.1\r\n"
            "host: 127.0.0.1:8080\r\n"
            "accept: */*\r\n"
            "user-agent: stampede/" +
                version() +
                "\r\n"
                "Connection: close\r\n\r\n");
  c.keep_alive = true;
  EXPECT_NE(format(c).find("\r\nConnection: keep-alive\r\n"), std::string::npos);
}

TEST(Request, HostHasNoDefaultPort) {
  Config c;
  c.url = "http://localhost/";
  EXPECT_NE(format(c).find("\r\nhost: localhost\r\n"), std::string::npos);
}

TEST(Request, ConfigHeadersReplaceTheDefaults) {
  Config c;
  c.url = "http://127.0.0.1:8080/";
  c.headers = {{"user-agent", "tester/0.4"}, {"host", "example.com"}, {"x-a", "1"}};
  const std::string bytes = format(c);
  EXPECT_TRUE(stampede::testing::contains_none(bytes, {"stampede/", "127.0.0.1"}));
  EXPECT_TRUE(stampede::testing::contains_all(
      bytes, {"\r\nuser-agent: tester/0.4\r\n", "\r\nhost: example.com\r\n", "\r\nx-a: 1\r\n",
              "\r\naccept: */*\r\n"}));
}

TEST(Request, BodyCookiesAndContentType) {
  Config c;
  c.url = "http://127.0.0.1:8080/";
  c.method = "POST";
  c.body = "hello";
  c.cookies = {"a=1", "b=2"};
  const std::string bytes = format(c);
  EXPECT_EQ(bytes.rfind("POST / HTTP/1.1\r\n", 0), 0u);
  EXPECT_NE(bytes.find("\r\ncookie: a=1; b=2\r\n"), std::string::npos);
  EXPECT_NE(bytes.find("\r\nContent-Type: text/plain\r\n"), std::string::npos);
  EXPECT_NE(bytes.find("\r\nContent-Length: 5\r\n"), std::string::npos);
  EXPECT_EQ(bytes.substr(bytes.size() - 9), "\r\n\r\nhello");
  c.content_type = "application/json";
  EXPECT_NE(format(c).find("\r\nContent-Type: application/json\r\n"), std::string::npos);
}

TEST(RequestTemplate, WithoutIndexTheRequestIsFixed) {
  Config c;
  c.url = "http://127.0.0.1:8080/a";
  const auto spec = make_request_spec(c, url_of(c.url));
  auto t = RequestTemplate::build(spec, "");
  EXPECT_FALSE(t.indexed());
  EXPECT_EQ(t.fixed(), http::format_request(spec));
  auto absent = RequestTemplate::build(spec, "ID");
  EXPECT_FALSE(absent.indexed());
  EXPECT_EQ(absent.fixed(), http::format_request(spec));
}

// The template must give exactly what format_request gives for the substituted target and
// body, for indexes of every length (Content-Length follows the body).
TEST(RequestTemplate, SubstitutesTheIndexInTargetAndBodyOnly) {
  Config c;
  c.url = "http://127.0.0.1:8080/item/ID?x=ID&y=1";
  c.method = "POST";
  c.body = "{\"id\":\"ID\",\"again\":\"ID\"}";
  c.headers = {{"x-keep", "ID"}};
  const auto spec = make_request_spec(c, url_of(c.url));
  const auto t = RequestTemplate::build(spec, "ID");
  ASSERT_TRUE(t.indexed());
  std::string out;
  for (std::uint64_t index : {1ull, 7ull, 42ull, 12345ull, 18446744073709551615ull}) {
    auto expected_spec = spec;
    expected_spec.target = replace_all(spec.target, "ID", std::to_string(index));
    expected_spec.body = replace_all(spec.body, "ID", std::to_string(index));
    t.render(index, out);
    EXPECT_EQ(out, http::format_request(expected_spec)) << index;
    EXPECT_NE(out.find("\r\nx-keep: ID\r\n"), std::string::npos);
  }
}

TEST(RequestTemplate, RenderDoesNotGrowOnceLargeEnough) {
  Config c;
  c.url = "http://127.0.0.1:8080/ID";
  const auto t = RequestTemplate::build(make_request_spec(c, url_of(c.url)), "ID");
  std::string out;
  t.render(18446744073709551615ull, out);
  const char* data = out.data();
  const std::size_t capacity = out.capacity();
  for (std::uint64_t i = 1; i < 1000; ++i) {
    t.render(i, out);
    ASSERT_EQ(out.data(), data);
  }
  EXPECT_EQ(out.capacity(), capacity);
  EXPECT_EQ(out.rfind("GET /999 HTTP/1.1\r\n", 0), 0u);
}

TEST(RequestHelpers, FieldValuesAndUpperCase) {
  EXPECT_TRUE(is_field_value("Basic xx=="));
  EXPECT_FALSE(is_field_value("a\r\nb"));
  EXPECT_FALSE(is_field_value(std::string("a\0b", 3)));
  EXPECT_EQ(upper_case("pAtch"), "PATCH");
}

}  // namespace
}  // namespace stampede::loadgen
