// RawOptionTexts: each option's text lands in its RawOptions field once parsed, named by the
// option its errors should quote; nothing lands for an option not given.
#include "cli/raw_options.h"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/command_line.h"

namespace stampede::loadgen {
namespace {

struct Declared {
  CLI::App app;
  RawOptions raw;
  RawOptionTexts texts;
  Declared() {
    texts.add(app, "url", raw.url, "the URL", "URL");
    texts.add_last_wins(app, "-d,--timeout", raw.timeout, "a timeout");
    texts.add_last_wins(app, "-R,--requestGenerator", raw.request_script, "a script", "-R");
    texts.add_list(app, "-H", raw.headers, "a header");
    add_threshold_options(app, texts, raw);
  }
  Expected<std::optional<std::string>> parse(std::vector<std::string> args) {
    args.insert(args.begin(), "stampede");
    auto parsed = parse_cli(app, args);
    if (parsed && !*parsed) texts.land();
    return parsed;
  }
};

TEST(RawOptionTexts, EachTextLandsInItsFieldUnderItsOptionsName) {
  Declared d;
  ASSERT_TRUE(d.parse({"http://h/", "-d", "5", "--requestGenerator", "a.lua", "-H", "a: 1", "-H",
                       "b: 2", "--min-rps", "7"}));
  ASSERT_TRUE(d.raw.url);
  EXPECT_EQ(d.raw.url->text, "http://h/");
  EXPECT_EQ(d.raw.url->origin, "URL");
  ASSERT_TRUE(d.raw.timeout);
  EXPECT_EQ(d.raw.timeout->text, "5");
  EXPECT_EQ(d.raw.timeout->origin, "--timeout");  // the long name, though -d was typed
  ASSERT_TRUE(d.raw.request_script);
  EXPECT_EQ(d.raw.request_script->origin, "-R");  // given: not the long name
  ASSERT_EQ(d.raw.headers.size(), 2u);
  EXPECT_EQ(d.raw.headers[0].text, "a: 1");
  EXPECT_EQ(d.raw.headers[1].text, "b: 2");
  EXPECT_EQ(d.raw.headers[1].origin, "-H");
  ASSERT_TRUE(d.raw.min_rps);
  EXPECT_EQ(d.raw.min_rps->origin, "--min-rps");
  EXPECT_FALSE(d.raw.max_p99);  // not given: nothing lands
  EXPECT_FALSE(d.raw.max_error_rate);
}

TEST(RawOptionTexts, TheLastValueWinsAndAnEmptyOneStillLands) {
  Declared d;
  ASSERT_TRUE(d.parse({"u", "--timeout", "1", "-d", "2", "--max-p99", ""}));
  ASSERT_TRUE(d.raw.timeout);
  EXPECT_EQ(d.raw.timeout->text, "2");
  ASSERT_TRUE(d.raw.max_p99);  // given empty: refused later as a value, never "not given"
  EXPECT_EQ(d.raw.max_p99->text, "");
}

}  // namespace
}  // namespace stampede::loadgen
