// The man pages and shell completions the build wrote (apps/CMakeLists.txt, into
// STAMPEDE_MANUAL_DIR) held to what the binary's --help says, option by option, so that they
// cannot drift from it; and the writers (cli/man_page.h, cli/completion.h) on small documents.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command_doc.h"
#include "cli/man_page.h"
#include "cli/subcommands.h"
#include "help_entries.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace stampede {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::run_command;
using testing::RunResult;

const std::string kManualDir = STAMPEDE_MANUAL_DIR;

std::string page_path(const std::string& page) {
  return kManualDir + "/man1/" + page + ".1";
}

// Runs of blanks as one space, none at the ends.
std::string squeezed(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  for (std::string word; in >> word;)
    out += (out.empty() ? "" : " ") + word;
  return out;
}

// roff text as it reads: font changes dropped, \- \e \& undone.
std::string unroff(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out += text[i];
    } else if (text[i + 1] == 'f' && i + 2 < text.size()) {
      i += 2;
    } else if (text[i + 1] == '-') {
      out += '-';
      ++i;
    } else if (text[i + 1] == 'e') {
      out += '\\';
      ++i;
    } else if (text[i + 1] == '&') {
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

struct PageEntry {
  std::vector<std::string> names;
  std::string description;
};

// The option (or positional) names at the start of a column: "-c,--cores N" and
// "-c, --cores N ..." give {"-c", "--cores"}, "url TEXT" gives {"url"}.
std::vector<std::string> names_in(std::string column) {
  std::replace(column.begin(), column.end(), ',', ' ');
  std::istringstream in(column);
  std::vector<std::string> names;
  for (std::string word; in >> word;) {
    if (word[0] == '-') {
      names.push_back(word);
    } else if (names.empty()) {
      return {word};
    } else {
      break;
    }
  }
  return names;
}

// The .TP entries of a man page: the names of its tag line, the line after as the description.
std::vector<PageEntry> page_entries(const std::string& page) {
  std::vector<PageEntry> entries;
  std::istringstream in(page);
  for (std::string line; std::getline(in, line);) {
    if (line != ".TP") continue;
    std::string tag, description;
    std::getline(in, tag);
    std::getline(in, description);
    entries.push_back({names_in(unroff(tag)), unroff(description)});
  }
  return entries;
}

std::string help_of(const Subcommand& sub) {
  std::vector<std::string> args;
  if (!sub.name.empty()) args.emplace_back(sub.name);
  args.emplace_back("--help");
  const RunResult r = testing::run_stampede(args, std::chrono::seconds(30));
  EXPECT_EQ(r.status, 0) << r.err;
  return r.out;
}

CommandDoc described(std::string_view name) {
  auto doc = describe_subcommand(find_subcommand(name));
  EXPECT_TRUE(doc) << doc.error().message;
  return doc ? *doc : CommandDoc{};
}

TEST(ManPages, OnePageForEverySubcommand) {
  std::set<std::string> expected, written;
  for (const Subcommand& sub : subcommands()) {
    expected.insert(std::string(sub.name.empty() ? "stampede" : "stampede-") +
                    std::string(sub.name) + ".1");
  }
  for (const auto& e : std::filesystem::directory_iterator(kManualDir + "/man1"))
    written.insert(e.path().filename().string());
  EXPECT_EQ(written, expected);
}

// Every entry of each --help is in its page, with the same names and description, and the page
// has no entry --help does not.
TEST(ManPages, EveryHelpEntryIsInItsPageWordForWord) {
  for (const Subcommand& sub : subcommands()) {
    const std::string page_name =
        sub.name.empty() ? "stampede" : "stampede-" + std::string(sub.name);
    SCOPED_TRACE(page_name);
    const std::vector<HelpEntry> help = help_entries(help_of(sub));
    const std::vector<PageEntry> page = page_entries(testing::read_file(page_path(page_name)));
    ASSERT_GE(help.size(), 5u);
    EXPECT_EQ(page.size(), help.size());
    for (const HelpEntry& h : help) {
      const std::vector<std::string> names = names_in(h.names);
      const auto found = std::find_if(page.begin(), page.end(),
                                      [&](const PageEntry& p) { return p.names == names; });
      if (found == page.end()) {
        ADD_FAILURE() << "not in the page: " << h.names;
        continue;
      }
      EXPECT_EQ(squeezed(found->description), squeezed(h.description)) << h.names;
    }
  }
}

// The prose of docs/man is in each page: what it is for, how it is used, what it returns.
TEST(ManPages, EachPageHasItsProse) {
  for (const Subcommand& sub : subcommands()) {
    const std::string page_name =
        sub.name.empty() ? "stampede" : "stampede-" + std::string(sub.name);
    const std::string page = testing::read_file(page_path(page_name));
    for (const char* section : {".SH DESCRIPTION\n.PP\n", ".SH EXAMPLES\n", ".SH EXIT STATUS\n"})
      EXPECT_THAT(page, HasSubstr(section)) << page_name;
  }
}

// groff (what man runs) formats every page with all its warnings on and gives none (an undefined
// macro or a bad escape would be one). groff itself: man's pipeline costs half a second a page
// on a loaded machine.
TEST(ManPages, GroffFormatsThemWithoutWarnings) {
  std::vector<std::string> argv = {"/usr/bin/groff", "-man", "-Tascii", "-ww"};
  std::vector<std::string> titles;
  for (const auto& e : std::filesystem::directory_iterator(kManualDir + "/man1")) {
    argv.push_back(e.path().string());
    std::string title = e.path().stem().string();
    std::transform(title.begin(), title.end(), title.begin(), ::toupper);
    titles.push_back(title + "(1)");
  }
  ASSERT_GE(titles.size(), 5u);
  const RunResult r = run_command(argv, std::chrono::seconds(30));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  for (const std::string& title : titles)
    EXPECT_THAT(r.out, HasSubstr(title + " "));
}

TEST(Describe, EverySubcommandDescribesItself) {
  for (const Subcommand& sub : subcommands()) {
    const CommandDoc doc = described(sub.name);
    EXPECT_EQ(doc.subcommand, sub.name);
    EXPECT_GE(doc.options.size(), 5u) << sub.name;
    EXPECT_THAT(doc.title, HasSubstr(command_name(doc) + ": "));
  }
}

int returns_without_parsing(int, char**) {
  return 0;
}

TEST(Describe, AMainThatDoesNotParseWithParseCliIsAnError) {
  const auto doc = describe_subcommand({"quiet", &returns_without_parsing});
  ASSERT_FALSE(doc);
  EXPECT_THAT(doc.error().message, HasSubstr("stampede quiet returned 0 instead of describing"));
}

// The argument is no command: typed by hand, it is one line and exit status 2; with more
// arguments, it is an unknown option like any other.
TEST(Describe, TheArgumentTypedByAUserIsOneLineAndStatus2) {
  RunResult r = testing::run_stampede({"serve", std::string(kDescribeArgument)});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "stampede: --describe-command-line is for the build's manual writer, not a "
            "command\n");
  EXPECT_EQ(r.out, "");
  r = testing::run_stampede({"serve", "--port", "0", std::string(kDescribeArgument)});
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("--describe-command-line"));
}

CommandDoc small_doc() {
  CommandDoc doc;
  doc.subcommand = "try";
  doc.title = "stampede try: a small command";
  doc.footer = "MS: milliseconds.";
  doc.options.push_back({{"file"}, "FILE", "What to read", true, true, true});
  doc.options.push_back(
      {{"-c", "--count"}, "N", ".5 of a thing\\n; default 1", false, false, false});
  doc.options.push_back({{"--dry-run"}, "", "Do nothing", false, false, false});
  return doc;
}

TEST(ManPage, ProseGoesAroundTheGeneratedSections) {
  const std::string prose =
      "DESCRIPTION\nTries a thing\nat once.\n\nAgain.\nEXAMPLES\n  stampede try -c 2 x\n"
      "  .hidden\nEXIT STATUS\n0 always.\n";
  const std::vector<std::string> pages = {"stampede", "stampede-try"};
  const std::string page = write_man_page(small_doc(), {prose, "9.9", pages});
  EXPECT_THAT(page, HasSubstr(".TH STAMPEDE\\-TRY 1 \"\" \"stampede 9.9\" \"User Commands\"\n"));
  EXPECT_THAT(page, HasSubstr(".SH NAME\nstampede\\-try \\- a small command\n"));
  EXPECT_THAT(page,
              HasSubstr(".SH SYNOPSIS\n.B stampede try\n[\\fIOPTIONS\\fR] \\fIfile\\fR ...\n"));
  EXPECT_THAT(page, HasSubstr(".SH DESCRIPTION\n.PP\nTries a thing\nat once.\n.PP\nAgain.\n"));
  EXPECT_THAT(page, HasSubstr(".TP\n\\fB\\-c\\fR, \\fB\\-\\-count\\fR \\fIN\\fR\n"
                              "\\&.5 of a thing\\en; default 1\n"));
  EXPECT_THAT(page, HasSubstr(".TP\n\\fB\\-\\-dry\\-run\\fR\nDo nothing\n"));
  EXPECT_THAT(page, HasSubstr(".PP\n.RS 4\n.nf\nstampede try \\-c 2 x\n\\&.hidden\n.fi\n.RE\n"));
  EXPECT_THAT(page, HasSubstr(".SH SEE ALSO\n\\fBstampede\\fR(1)\n"));
  EXPECT_THAT(page, Not(HasSubstr("stampede\\-try\\fR(1)")));
  const std::vector<std::string> order = {".SH NAME",      ".SH SYNOPSIS",    ".SH DESCRIPTION",
                                          ".SH ARGUMENTS", ".SH OPTIONS",     "MS: milliseconds.",
                                          ".SH EXAMPLES",  ".SH EXIT STATUS", ".SH SEE ALSO"};
  std::size_t at = 0;
  for (const std::string& mark : order) {
    const std::size_t found = page.find(mark, at);
    ASSERT_NE(found, std::string::npos) << mark << " missing or out of order";
    at = found;
  }
}

TEST(ManPage, WithoutProseTheTitleDescribes) {
  const std::string page = write_man_page(small_doc(), {"", "1", {}});
  EXPECT_THAT(page, HasSubstr(".SH DESCRIPTION\na small command\n"));
  EXPECT_THAT(page, Not(HasSubstr("SEE ALSO")));
}

TEST(ManPage, RoffEscapes) {
  EXPECT_EQ(roff_escape("a-b\\c"), "a\\-b\\ec");
  EXPECT_EQ(roff_escape(".TH x"), "\\&.TH x");
  EXPECT_EQ(roff_escape("'quote"), "\\&'quote");
  EXPECT_EQ(roff_escape("one\ntwo"), "one two");
}

}  // namespace
}  // namespace stampede
