// ConnectionTokens (http/connection_tokens.h): how a Connection field splits into options, and
// the bound: exactly kMax options are kept, one more is an overflow, across fields too.
#include "http/connection_tokens.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace stampede::http {
namespace {

// "x-0, x-1, ..., x-(n-1)"
std::string list_of(std::size_t n, std::size_t first = 0) {
  std::string out;
  for (std::size_t i = first; i < first + n; ++i) {
    if (!out.empty()) out += ", ";
    out += "x-" + std::to_string(i);
  }
  return out;
}

struct Case {
  std::string list;                    // one Connection field's value
  std::size_t size;                    // the options it names
  std::vector<std::string> named;      // contains() true
  std::vector<std::string> not_named;  // contains() false
};

TEST(ConnectionTokens, SplitsAListIntoOptions) {
  const Case cases[] = {
      {"", 0, {}, {"", "close"}},
      {" \t ", 0, {}, {"", " "}},
      {",, ,\t,", 0, {}, {"", ","}},
      {"close", 1, {"close"}, {"clos", "closed"}},
      {" close ,X-A,, x-b ", 3, {"close", "x-a", "X-B"}, {"x-c"}},
      {"Keep-Alive, X-FOO", 2, {"keep-alive", "KEEP-ALIVE", "x-Foo"}, {"keep"}},
      // \v is not OWS: the element is "\vx-vt".
      {"\tx-tab\t,\vx-vt", 2, {"x-tab", "\vx-vt"}, {"x-vt"}},
      // Odd elements are kept as they are: they equal no field name a parser accepts.
      {"\"x-quoted\", x y, x-\xff, x;q=1",
       4,
       {"\"x-quoted\"", "x y", "x-\xff", "x;q=1"},
       {"x-quoted", "x", "y"}},
  };
  for (const Case& c : cases) {
    ConnectionTokens t;
    t.add_list(c.list);
    EXPECT_EQ(t.size(), c.size) << c.list;
    EXPECT_FALSE(t.overflow()) << c.list;
    for (const std::string& name : c.named)
      EXPECT_TRUE(t.contains(name)) << c.list << " / " << name;
    for (const std::string& name : c.not_named)
      EXPECT_FALSE(t.contains(name)) << c.list << " / " << name;
  }
}

TEST(ConnectionTokens, ExactlyMaxIsKept) {
  ConnectionTokens t;
  const std::string list = list_of(ConnectionTokens::kMax) + ", , ";
  t.add_list(list);
  EXPECT_FALSE(t.overflow());
  EXPECT_EQ(t.size(), ConnectionTokens::kMax);
  EXPECT_TRUE(t.contains("x-0"));
  EXPECT_TRUE(t.contains("x-" + std::to_string(ConnectionTokens::kMax - 1)));
}

TEST(ConnectionTokens, OneMoreThanMaxOverflows) {
  ConnectionTokens t;
  const std::string list = list_of(ConnectionTokens::kMax + 1);
  t.add_list(list);
  EXPECT_TRUE(t.overflow());
  EXPECT_EQ(t.size(), ConnectionTokens::kMax);
  EXPECT_FALSE(t.contains("x-" + std::to_string(ConnectionTokens::kMax)));
  // Once over, later lists are not read.
  t.add_list("x-late");
  EXPECT_TRUE(t.overflow());
  EXPECT_FALSE(t.contains("x-late"));
}

TEST(ConnectionTokens, TheBoundCountsAcrossFields) {
  const std::string first = list_of(ConnectionTokens::kMax - 1);
  const std::string last = list_of(1, ConnectionTokens::kMax - 1);
  const std::string extra = list_of(1, ConnectionTokens::kMax);
  std::vector<Header> headers = {{"Connection", first}, {"X-Other", "a, b"}, {"connection", last}};
  ConnectionTokens exact;
  exact.add_fields(headers);
  EXPECT_FALSE(exact.overflow());
  EXPECT_EQ(exact.size(), ConnectionTokens::kMax);
  EXPECT_FALSE(exact.contains("a"));  // only fields named Connection are read

  headers.push_back({"CONNECTION", extra});
  ConnectionTokens over;
  over.add_fields(headers);
  EXPECT_TRUE(over.overflow());
}

}  // namespace
}  // namespace stampede::http
