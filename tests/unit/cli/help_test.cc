// Every subcommand's --help, as the binary prints it: each option and positional line says what
// it does, and each one that takes a value says its default ("default ..."), so that a new option
// cannot be added without its help.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <string>
#include <vector>

#include "balancer/config.h"
#include "support/process.h"

namespace stampede {
namespace {

using ::testing::HasSubstr;

// One entry of CLI11's help: the names column ("-c,--cores N") and the description.
struct HelpEntry {
  std::string names;
  std::string description;
};

std::string trim(const std::string& text) {
  const std::size_t first = text.find_first_not_of(' ');
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

// The entries of the "Options:" and "Positionals:" sections. An entry starts two columns in; its
// description follows two or more spaces, or is on the next line(s), indented further, when the
// names fill the column.
std::vector<HelpEntry> help_entries(const std::string& help) {
  std::vector<HelpEntry> entries;
  std::istringstream in(help);
  bool in_section = false;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    if (line[0] != ' ') {
      in_section = line == "Options:" || line == "Positionals:";
      continue;
    }
    if (!in_section) continue;
    if (line.size() > 2 && line[2] != ' ') {
      const std::size_t gap = line.find("  ", 2);
      HelpEntry entry;
      entry.names = trim(line.substr(2, gap == std::string::npos ? std::string::npos : gap - 2));
      if (gap != std::string::npos) entry.description = trim(line.substr(gap));
      entries.push_back(entry);
    } else if (!entries.empty()) {
      std::string& description = entries.back().description;
      description += (description.empty() ? "" : " ") + trim(line);
    }
  }
  return entries;
}

// `stampede ARGS... --help` on stdout.
std::string help_of(std::vector<std::string> args) {
  args.insert(args.begin(), STAMPEDE_BINARY);
  args.push_back("--help");
  const testing::RunResult r = testing::run_command(args, std::chrono::seconds(30));
  EXPECT_EQ(r.status, 0) << r.err;
  return r.out;
}

// The checks, for each subcommand's help.
void expect_every_entry_described(const std::string& help) {
  const std::vector<HelpEntry> entries = help_entries(help);
  ASSERT_GE(entries.size(), 5u) << help;
  for (const HelpEntry& e : entries) {
    EXPECT_FALSE(e.description.empty()) << "no description: " << e.names;
    // "-c,--cores N" takes a value, "-k,--keepalive" is a flag (off unless given).
    const bool takes_value = e.names.find(' ') != std::string::npos;
    if (takes_value && e.names.rfind("--help", 0) != 0) {
      EXPECT_THAT(e.description, HasSubstr("default")) << "no default stated: " << e.names;
    }
  }
}

class Help : public ::testing::TestWithParam<const char*> {};

TEST_P(Help, EveryOptionSaysWhatItDoesAndItsDefault) {
  std::vector<std::string> args;
  if (std::string(GetParam()) != "generator") args.push_back(GetParam());
  expect_every_entry_described(help_of(args));
}

INSTANTIATE_TEST_SUITE_P(Subcommands, Help,
                         ::testing::Values("generator", "serve", "balance", "lab", "merge",
                                           "compare"),
                         [](const auto& info) { return std::string(info.param); });

TEST(HelpEntries, ParsesCli11sColumns) {
  const std::vector<HelpEntry> entries = help_entries(
      "stampede x\nUsage: stampede x [OPTIONS]\n\nOptions:\n"
      "  -h,--help                   Print this help message and exit\n"
      "  --bare TEXT\n"
      "  --long-name-that-fills-the-column NAME=HOST:PORT\n"
      "                              Said on the next line;\n"
      "                              and the one after; default none\n"
      "\nPositionals:\n  url TEXT                    Where to send\n\nA footer.\n");
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[0].names, "-h,--help");
  EXPECT_EQ(entries[0].description, "Print this help message and exit");
  EXPECT_EQ(entries[1].names, "--bare TEXT");
  EXPECT_EQ(entries[1].description, "");
  EXPECT_EQ(entries[2].description, "Said on the next line; and the one after; default none");
  EXPECT_EQ(entries[3].names, "url TEXT");
}

// The balancer's defaults in its help come from BalancerConfig's initial values.
TEST(HelpDefaults, BalanceShowsTheConfigsDefaults) {
  const std::string help = help_of({"balance"});
  const balancer::BalancerConfig defaults;
  std::vector<HelpEntry> entries = help_entries(help);
  const auto description = [&](const std::string& prefix) {
    for (const HelpEntry& e : entries) {
      if (e.names.rfind(prefix + " ", 0) == 0) return e.description;
    }
    return std::string("(no entry " + prefix + ")");
  };
  EXPECT_THAT(description("--pool-max-idle"),
              HasSubstr("default " + std::to_string(defaults.pool_max_idle)));
  EXPECT_THAT(description("--connect-timeout"),
              HasSubstr("default " + std::to_string(defaults.connect_timeout.count())));
  EXPECT_THAT(description("--strategy"), HasSubstr("default rr"));
  EXPECT_THAT(description("--listen"), HasSubstr("default " + defaults.listen));
}

}  // namespace
}  // namespace stampede
