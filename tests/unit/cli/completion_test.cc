// The bash and zsh completions the build wrote (STAMPEDE_MANUAL_DIR/bash/stampede and
// zsh/_stampede), run in the shells: bash through its own variables (COMP_WORDS, COMP_CWORD,
// COMPREPLY) as `complete -F` would, zsh with _arguments and _describe replaced by functions
// that print what they are given (no terminal, no compinit).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command_doc.h"
#include "cli/subcommands.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace stampede {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::RunResult;

const std::string kBashScript = std::string(STAMPEDE_MANUAL_DIR) + "/bash/stampede";
const std::string kZshScript = std::string(STAMPEDE_MANUAL_DIR) + "/zsh/_stampede";

std::set<std::string> lines_of(const std::string& text) {
  std::set<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.insert(line);
  return lines;
}

// What the bash completion offers for `words` with the cursor on the last one, in `dir`.
std::set<std::string> bash_offers(const std::vector<std::string>& words,
                                  const std::string& dir = "/") {
  std::string array;
  for (const std::string& w : words)
    array += " '" + w + "'";
  const std::string script = "cd '" + dir + "' && source '" + kBashScript + "' && COMP_WORDS=(" +
                             array + ") && COMP_CWORD=" + std::to_string(words.size() - 1) +
                             " && _stampede && printf '%s\\n' \"${COMPREPLY[@]}\"";
  const RunResult r =
      testing::run_command({"/bin/bash", "--norc", "-c", script}, std::chrono::seconds(10));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  return lines_of(r.out);
}

// The long options of a subcommand's --help, from its App (cli/subcommands.h).
std::set<std::string> long_options(std::string_view subcommand) {
  auto doc = describe_subcommand(find_subcommand(subcommand));
  EXPECT_TRUE(doc) << doc.error().message;
  std::set<std::string> names;
  if (!doc) return names;
  for (const OptionDoc& o : doc->options)
    for (const std::string& n : o.names)
      if (n.rfind("--", 0) == 0) names.insert(n);
  return names;
}

TEST(BashCompletion, OffersEveryOptionOfBalanceAfterDoubleDash) {
  const std::set<std::string> expected = long_options("balance");
  ASSERT_GE(expected.size(), 10u);
  EXPECT_EQ(bash_offers({"stampede", "balance", "--"}), expected);
}

TEST(BashCompletion, OffersTheGeneratorsOptionsWithoutASubcommand) {
  const std::set<std::string> offered = bash_offers({"stampede", "--"});
  EXPECT_EQ(offered, long_options(""));
  EXPECT_TRUE(offered.count("--rps"));
  EXPECT_FALSE(offered.count("--backend"));
  // After a URL, still the generator's.
  std::set<std::string> starting_r;
  for (const std::string& o : long_options(""))
    if (o.rfind("--r", 0) == 0) starting_r.insert(o);
  EXPECT_TRUE(starting_r.count("--rps"));
  EXPECT_EQ(bash_offers({"stampede", "http://127.0.0.1/", "--r"}), starting_r);
}

TEST(BashCompletion, OffersSubcommandsAsTheFirstWord) {
  EXPECT_EQ(bash_offers({"stampede", "se"}), (std::set<std::string>{"serve"}));
  std::set<std::string> all;
  for (const Subcommand& sub : subcommands())
    if (!sub.name.empty()) all.insert(std::string(sub.name));
  EXPECT_EQ(bash_offers({"stampede", ""}), all);
  // Only as the first word: `stampede serve se` is no subcommand.
  EXPECT_THAT(bash_offers({"stampede", "serve", "se"}), IsEmpty());
}

TEST(BashCompletion, CompletesValuesByTheirKind) {
  // Choices named in --help ("uring|epoll").
  EXPECT_EQ(bash_offers({"stampede", "serve", "--io", ""}),
            (std::set<std::string>{"epoll", "uring"}));
  // A PATH: files.
  testing::TempDir dir;
  std::ofstream(dir.path() + "/lb.json") << "{}";
  EXPECT_EQ(bash_offers({"stampede", "balance", "--config", "l"}, dir.path()),
            (std::set<std::string>{"lb.json"}));
  // Any other value: nothing to guess, not the options.
  EXPECT_THAT(bash_offers({"stampede", "balance", "--listen", ""}), IsEmpty());
  EXPECT_THAT(bash_offers({"stampede", "-c", "--"}), IsEmpty());
}

// zsh -f runs the script with stubs for the completion system's functions; prints what the
// script handed them, one argument a line (for _describe, the entries of the array it names:
// `_describe -t TAG DESCRIPTION ARRAY`).
RunResult zsh_run(const std::vector<std::string>& words) {
  std::string array;
  for (const std::string& w : words)
    array += " '" + w + "'";
  const std::string script =
      "_arguments() { print -rl -- ARGUMENTS \"$@\" }; "
      "_describe() { print -rl -- DESCRIBE \"${(@P)4}\" }; "
      "words=(" +
      array + "); CURRENT=" + std::to_string(words.size()) + "; source '" + kZshScript + "'";
  return testing::run_command({"/usr/bin/zsh", "-f", "-c", script}, std::chrono::seconds(10));
}

TEST(ZshCompletion, ParsesAndIsACompdefFile) {
  const RunResult r =
      testing::run_command({"/usr/bin/zsh", "-n", kZshScript}, std::chrono::seconds(10));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(testing::read_file(kZshScript).rfind("#compdef stampede\n", 0), 0u);
}

TEST(ZshCompletion, HandsBalanceItsOptions) {
  const RunResult r = zsh_run({"stampede", "balance", "--"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::set<std::string> lines = lines_of(r.out);
  EXPECT_FALSE(lines.count("DESCRIBE"));
  std::set<std::string> specified;
  for (const std::string& line : lines) {
    const std::size_t end = line.find_first_of("=[");
    if (line.rfind("--", 0) == 0 || line.rfind("*--", 0) == 0)
      specified.insert(line.substr(line[0] == '*', end - (line[0] == '*')));
  }
  EXPECT_EQ(specified, long_options("balance"));
  EXPECT_TRUE(lines.count(
      "--io=[What the event loops wait with: uring (io_uring) or epoll]:uring|epoll:(uring epoll)"))
      << r.out;
}

TEST(ZshCompletion, DescribesTheSubcommandsAsTheFirstWord) {
  const RunResult r = zsh_run({"stampede", "se"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::set<std::string> lines = lines_of(r.out);
  EXPECT_TRUE(lines.count("DESCRIBE")) << r.out;
  EXPECT_TRUE(lines.count("serve:a test server and self-naming instance")) << r.out;
  // The first word may also be the generator's URL or an option: its _arguments run too.
  EXPECT_TRUE(lines.count("ARGUMENTS")) << r.out;
}

}  // namespace
}  // namespace stampede
