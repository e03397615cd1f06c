#include "http/query.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace stampede::http {
namespace {

using Params = std::vector<std::pair<std::string_view, std::string>>;

TEST(Query, ParsesAndDecodes) {
  EXPECT_EQ(parse_query("a=1&b=two%20words&c=x+y&d=%E2%9C%93"),
            (Params{{"a", "1"}, {"b", "two words"}, {"c", "x y"}, {"d", "\xE2\x9C\x93"}}));
  EXPECT_EQ(parse_query("?status=503&delay=10ms"), (Params{{"status", "503"}, {"delay", "10ms"}}));
  EXPECT_EQ(parse_query("flag&&empty=&=v&k=a=b"),
            (Params{{"flag", ""}, {"empty", ""}, {"", "v"}, {"k", "a=b"}}));
  EXPECT_EQ(parse_query(""), Params{});
  EXPECT_EQ(parse_query("?"), Params{});
}

TEST(Query, MalformedEscapesKeptLiterally) {
  EXPECT_EQ(percent_decode("100%"), "100%");
  EXPECT_EQ(percent_decode("%zz%4"), "%zz%4");
  EXPECT_EQ(percent_decode("%41%6a%4A"), "AjJ");
  EXPECT_EQ(percent_decode("a+b", false), "a+b");
  EXPECT_EQ(percent_decode("%00x"), std::string("\0x", 2));
}

TEST(Query, CallbackFormDoesNotDecode) {
  std::vector<std::pair<std::string_view, std::string_view>> seen;
  for_each_query_param("x=%41&y",
                       [&](std::string_view k, std::string_view v) { seen.emplace_back(k, v); });
  EXPECT_EQ(seen,
            (std::vector<std::pair<std::string_view, std::string_view>>{{"x", "%41"}, {"y", ""}}));
}

TEST(Query, SplitTarget) {
  EXPECT_EQ(split_target("/p?q=1").path, "/p");
  EXPECT_EQ(split_target("/p?q=1").query, "q=1");
  EXPECT_EQ(split_target("/p").query, "");
  EXPECT_EQ(split_target("/p?").query, "");
  EXPECT_EQ(split_target("/p?a?b").query, "a?b");
}

}  // namespace
}  // namespace stampede::http
