// The checks for option text that goes into HTTP messages (http/tokens.h): each kind refuses
// every byte that could end a line or is not allowed there, and names it without echoing it.
#include "http/tokens.h"

#include <gtest/gtest.h>

#include <string>

namespace stampede::http {
namespace {

const std::string kInjections[] = {std::string("a\rb"),    std::string("a\nb"),
                                   std::string("a\0b", 3), std::string("a\r\nX: 1"),
                                   std::string("a\x7f"),   std::string("caf\xc3\xa9")};

TEST(Tokens, RequestTargets) {
  EXPECT_TRUE(check_request_target("/"));
  EXPECT_TRUE(check_request_target("/count?x=1&y=%20"));
  EXPECT_FALSE(check_request_target(""));
  EXPECT_FALSE(check_request_target("count"));
  EXPECT_FALSE(check_request_target("/a b"));
  EXPECT_FALSE(check_request_target("/a\tb"));
  for (const std::string& bad : kInjections)
    EXPECT_FALSE(check_request_target("/" + bad)) << bad;
  EXPECT_EQ(check_request_target("/a\r\nX: 1").error().message,
            "a CR at offset 2 (a path is '/' then visible ASCII only)");
}

TEST(Tokens, HeaderNames) {
  EXPECT_TRUE(check_header_name("x-session"));
  EXPECT_TRUE(check_header_name("X_Weird!#$%&'*+.^`|~"));
  EXPECT_FALSE(check_header_name(""));
  EXPECT_FALSE(check_header_name("x session"));
  EXPECT_FALSE(check_header_name("x:y"));
  for (const std::string& bad : kInjections)
    EXPECT_FALSE(check_header_name("x" + bad)) << bad;
}

TEST(Tokens, HeaderValues) {
  EXPECT_TRUE(check_header_value(""));
  EXPECT_TRUE(check_header_value("a b\tc"));
  EXPECT_FALSE(check_header_value(" a"));
  EXPECT_FALSE(check_header_value("a "));
  for (const std::string& bad : kInjections)
    EXPECT_FALSE(check_header_value("x" + bad)) << bad;
  EXPECT_EQ(check_header_value(std::string("a\0", 2)).error().message,
            "byte 0x00 at offset 1 (a header value is visible ASCII and inner spaces)");
}

TEST(Tokens, Hosts) {
  EXPECT_TRUE(check_host("127.0.0.1"));
  EXPECT_TRUE(check_host("backend-1.example_internal"));
  EXPECT_TRUE(check_host("[::1]"));
  EXPECT_TRUE(check_host("[fe80::1:2]"));
  EXPECT_FALSE(check_host(""));
  EXPECT_FALSE(check_host("[::1"));
  EXPECT_FALSE(check_host("[]"));
  EXPECT_FALSE(check_host("[::g]"));
  EXPECT_FALSE(check_host("a b"));
  EXPECT_FALSE(check_host("a:80"));
  EXPECT_FALSE(check_host(std::string(256, 'a')));
  for (const std::string& bad : kInjections)
    EXPECT_FALSE(check_host("x" + bad)) << bad;
}

TEST(Tokens, IsToken) {
  EXPECT_TRUE(is_token("GET"));
  EXPECT_FALSE(is_token(""));
  EXPECT_FALSE(is_token("a/b"));
}

}  // namespace
}  // namespace stampede::http
