// The shared command-line helpers: an empty option value is refused (not taken as "not given"),
// (the escaping of error lines is tested in input_test.cc).
#include "cli/command_line.h"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

namespace stampede {
namespace {

TEST(CommandLine, EmptyValuesAreRefusedUnlessAllowed) {
  auto parse = [](std::vector<std::string> args, std::vector<std::string> may_be_empty) {
    CLI::App app;
    std::string list, body;
    bool flag = false;
    app.add_option("--list", list);
    app.add_option("-b,--body", body);
    app.add_flag("--flag", flag);
    args.insert(args.begin(), "prog");
    if (auto r = parse_cli(app, args); !r) return Expected<void>(r.error());
    return refuse_empty_values(app, may_be_empty);
  };
  EXPECT_TRUE(parse({}, {}));
  EXPECT_TRUE(parse({"--list", "a", "--flag"}, {}));
  auto empty = parse({"--list", ""}, {});
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().message, "--list: empty value");
  EXPECT_FALSE(parse({"-b", ""}, {}));
  EXPECT_TRUE(parse({"-b", ""}, {"--body"}));
}

}  // namespace
}  // namespace stampede
