#include "loadgen/indexed_text.h"

#include <gtest/gtest.h>

#include <string>

namespace stampede::loadgen {
namespace {

// What IndexedText must give: `text` with each occurrence of `param`, left to right and not
// overlapping, replaced by `index`.
std::string replaced(const std::string& text, const std::string& param, std::uint64_t index) {
  std::string out;
  std::size_t done = 0;
  for (std::size_t at = text.find(param); !param.empty() && at != std::string::npos;
       at = text.find(param, at + param.size())) {
    out += text.substr(done, at - done) + std::to_string(index);
    done = at + param.size();
  }
  return out + text.substr(done);
}

std::string render(const IndexedText& t, std::uint64_t index) {
  std::string out = "left over";
  t.render(index, out);
  EXPECT_EQ(out.size(), t.size(index));
  return out;
}

TEST(IndexedText, OddPlacesOfTheParameter) {
  struct Case {
    std::string text, param, expected;
    std::size_t slots;
  };
  const Case cases[] = {
      {"IDX/rest", "IDX", "42/rest", 1},           // at the start
      {"rest/IDX", "IDX", "rest/42", 1},           // at the end
      {"IDX", "IDX", "42", 1},                     // the whole text
      {"a=IDXIDX;", "IDX", "a=4242;", 2},          // twice, adjacent
      {"no parameter", "IDX", "no parameter", 0},  // absent
      {"", "IDX", "", 0},                          // empty text
      {"IDIDX", "IDX", "ID42", 1},                 // a prefix of it just before
      {"IDXDX", "IDX", "42DX", 1},                 // a suffix of it just after
      {"aaaaa", "aa", "4242a", 2},                 // overlapping: left to right, not overlapping
      {"id", "IDX", "id", 0},                      // case matters
      {"a IDX b", "", "a IDX b", 0},               // empty parameter: nothing to replace
  };
  for (const Case& c : cases) {
    const IndexedText t(c.text, c.param);
    EXPECT_EQ(t.text(), c.text);
    EXPECT_EQ(t.slots(), c.slots) << c.text;
    EXPECT_EQ(t.indexed(), c.slots > 0) << c.text;
    EXPECT_EQ(render(t, 42), c.expected) << c.text;
    for (std::uint64_t index : {0ull, 9ull, 10ull, 123456789ull, 18446744073709551615ull})
      EXPECT_EQ(render(t, index), replaced(c.text, c.param, index)) << c.text << " " << index;
  }
}

TEST(IndexedText, LiteralPiecesAreLeftAlone) {
  IndexedText t;
  t.add_literal("IDX literal ");
  t.add_indexed("IDX in ", "IDX");
  t.add_literal("IDX");
  t.add_indexed("and IDX", "IDX");
  EXPECT_EQ(t.text(), "IDX literal IDX in IDXand IDX");
  EXPECT_EQ(t.slots(), 2u);
  EXPECT_EQ(render(t, 7), "IDX literal 7 in IDXand 7");
  std::string out = "kept:";
  t.append(1234, out);
  EXPECT_EQ(out, "kept:IDX literal 1234 in IDXand 1234");
}

TEST(IndexedText, RenderDoesNotGrowOnceLargeEnough) {
  const IndexedText t("{\"id\":IDX,\"again\":IDX}", "IDX");
  std::string out;
  t.render(18446744073709551615ull, out);
  const char* data = out.data();
  for (std::uint64_t i = 0; i < 1000; ++i) {
    t.render(i, out);
    ASSERT_EQ(out.data(), data);
  }
  EXPECT_EQ(out, "{\"id\":999,\"again\":999}");
}

TEST(IndexedText, DecimalHelpers) {
  EXPECT_EQ(decimal_digits(0), 1u);
  EXPECT_EQ(decimal_digits(9), 1u);
  EXPECT_EQ(decimal_digits(10), 2u);
  EXPECT_EQ(decimal_digits(18446744073709551615ull), 20u);
  std::string out = "n=";
  append_decimal(out, 0);
  append_decimal(out, 18446744073709551615ull);
  EXPECT_EQ(out, "n=018446744073709551615");
}

}  // namespace
}  // namespace stampede::loadgen
