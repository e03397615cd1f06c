// The checks for option text that goes into HTTP messages (http/tokens.h): each kind refuses
// every byte that could end a line or is not allowed there, and names it without echoing it.
#include "http/tokens.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>

namespace stampede::http {
namespace {

const std::string kInjections[] = {std::string("a\rb"),    std::string("a\nb"),
                                   std::string("a\0b", 3), std::string("a\r\nX: 1"),
                                   std::string("a\x7f"),   std::string("caf\xc3\xa9")};

using Check = Expected<void> (*)(std::string_view);

// `check` accepts each of `good`; refuses each of `bad`, and `prefix` followed by each injection.
void expect_verdicts(Check check, std::initializer_list<std::string> good,
                     std::initializer_list<std::string> bad, const std::string& prefix) {
  for (const std::string& text : good)
    EXPECT_TRUE(check(text)) << "refused: " << text;
  for (const std::string& text : bad)
    EXPECT_FALSE(check(text)) << "accepted: " << text;
  for (const std::string& injection : kInjections)
    EXPECT_FALSE(check(prefix + injection)) << "accepted: " << prefix + injection;
}

TEST(Tokens, RequestTargets) {
  expect_verdicts(check_request_target, {"/", "/count?x=1&y=%20"}, {"", "count", "/a b", "/a\tb"},
                  "/");
  EXPECT_EQ(check_request_target("/a\r\nX: 1").error().message,
            "a CR at offset 2 (a path is '/' then visible ASCII only)");
}

TEST(Tokens, HeaderNames) {
  expect_verdicts(check_header_name, {"x-session", "X_Weird!#$%&'*+.^`|~"},
                  {"", "x session", "x:y"}, "x");
}

TEST(Tokens, HeaderValues) {
  expect_verdicts(check_header_value, {"", "a b\tc"}, {" a", "a "}, "x");
  EXPECT_EQ(check_header_value(std::string("a\0", 2)).error().message,
            "byte 0x00 at offset 1 (a header value is visible ASCII and inner spaces)");
}

TEST(Tokens, Hosts) {
  expect_verdicts(check_host, {"127.0.0.1", "backend-1.example_internal", "[::1]", "[fe80::1:2]"},
                  {"", "[::1", "[]", "[::g]", "a b", "a:80", std::string(256, 'a')}, "x");
}

TEST(Tokens, IsToken) {
  EXPECT_TRUE(is_token("GET"));
  EXPECT_FALSE(is_token(""));
  EXPECT_FALSE(is_token("a/b"));
}

}  // namespace
}  // namespace stampede::http
