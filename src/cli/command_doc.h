// A subcommand's command line as data, read from its CLI11 App once its options are declared:
// what the manual pages and the shell completions are written from (cli/man_page.h,
// cli/completion.h), so that they say what --help says and cannot drift from it.
//
// How the writer reaches an App that a subcommand builds inside its own parse: parse_cli
// (cli/command_line.h), given kDescribeArgument as the only argument, throws
// CommandLineDescribed with the document of the App it was handed instead of parsing.
// describe_subcommand (cli/subcommands.h) calls the subcommand's main that way and catches it,
// so every subcommand that parses through parse_cli is described with no list of its options
// written anywhere else. A user who types the argument gets one line and exit status 2.
#pragma once

#include <exception>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace CLI {
class App;
}  // namespace CLI

namespace stampede {

struct OptionDoc {
  std::vector<std::string> names;  // "-c", "--cores"; a positional: its one name ("url")
  std::string value;               // what it takes, as --help names it ("N"); empty: a flag
  std::string description;         // as --help prints it
  bool positional = false;
  bool repeatable = false;  // may be given more than once (--help's "...")
  bool required = false;
};

struct CommandDoc {
  std::string subcommand;          // "serve"; empty: the generator, plain `stampede`
  std::string title;               // the App's description: "stampede serve: a test server ..."
  std::string footer;              // what --help prints after the options
  std::vector<OptionDoc> options;  // in --help's order; the hidden ones are left out
};

// The document of `app`, with `subcommand` left empty (the caller knows it).
CommandDoc document_command_line(const CLI::App& app);

// "stampede serve" for "serve", "stampede" for the generator.
std::string command_name(const CommandDoc& doc);
// The title without its "stampede serve: " prefix: "a test server and self-naming instance".
std::string command_summary(const CommandDoc& doc);

inline constexpr std::string_view kDescribeArgument = "--describe-command-line";

// Thrown by parse_cli for kDescribeArgument; caught by describe_subcommand.
class CommandLineDescribed : public std::exception {
 public:
  explicit CommandLineDescribed(CommandDoc doc) : doc_(std::move(doc)) {}
  const CommandDoc& doc() const { return doc_; }
  const char* what() const noexcept override {
    return "--describe-command-line is for the build's manual writer, not a command";
  }

 private:
  CommandDoc doc_;
};

}  // namespace stampede
