// The part of a subcommand's command line that is the same for every one of them: parsing with
// CLI11 (a parse error becomes one line for the user; --help yields the help text), and, in the
// subcommand's main, printing that line (exit code 2, through core/error_line.h) or the help
// (exit code 0). Only src/cli includes CLI11: the engines never see it.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error_line.h"
#include "core/expected.h"
#include "net/io_backend.h"

namespace CLI {
class App;
class Option;
class ParseError;
}  // namespace CLI

namespace stampede {

// Turns a CLI11 parse error into the line the user sees (without "stampede: ").
using DescribeParseError = std::string (*)(const CLI::ParseError& error);

// Parses `argc` arguments at `argv` (argv[0] is the program) with `app`. Returns the help text
// when the user asked for help (--help, -h), nullopt when the command goes on, or an Error whose
// message is `describe(error)` (by default CLI11's own message) for a parse error. Given only
// kDescribeArgument, throws CommandLineDescribed (cli/command_doc.h): how the manual pages and
// completions are written from `app` itself.
Expected<std::optional<std::string>> parse_cli(CLI::App& app, int argc, const char* const* argv,
                                               DescribeParseError describe = nullptr);
// The same for the arguments as strings (args[0] is the program).
Expected<std::optional<std::string>> parse_cli(CLI::App& app, const std::vector<std::string>& args);

// The same for a command line struct with `bool help` and `std::string help_text` (`args...` as
// for the calls above): when the user asked for help, sets them and returns true.
template <class CommandLine, class... Args>
Expected<bool> parse_cli_into(CommandLine& out, CLI::App& app, const Args&... args) {
  Expected<std::optional<std::string>> parsed = parse_cli(app, args...);
  if (!parsed) return parsed.error();
  if (!*parsed) return false;
  out.help = true;
  out.help_text = std::move(**parsed);
  return true;
}

// After a successful parse: an Error naming the first option given with an empty value ("--x ''"),
// unless its long name is in `may_be_empty` (e.g. "--body"). An empty value is never taken as
// "not given" (which would run with the default, as if the option had not been typed).
Expected<void> refuse_empty_values(const CLI::App& app,
                                   const std::vector<std::string>& may_be_empty = {});

// Declares on `app` an option of one value (nullopt: not given) where, given twice, the last value
// wins instead of being an error: the rule of every single-valued option of the generator (as
// loadtest's) and of `merge`.
CLI::Option* add_last_wins_option(CLI::App& app, const std::string& names,
                                  std::optional<std::string>& into, const std::string& help);

// --io uring|epoll, the same on every subcommand that runs event loops: declares it on `app`,
// into `text` (nullopt: not given).
void add_io_option(CLI::App& app, std::optional<std::string>& text);
// The backend --io names (not given: net::kDefaultIoBackend), or an Error for any other value.
Expected<net::IoBackend> parse_io_option(const std::optional<std::string>& text);
// At start, before any loop is made: `requested` when it works here; else epoll, after one line
// on stderr saying why io_uring cannot be used (net::choose_io_backend).
net::IoBackend settle_io_backend(net::IoBackend requested);

// The last step of a subcommand's parse: `config` prepared into `out.plan` by its engine's
// prepare() (found by argument-dependent lookup), or prepare()'s refusal as it is worded there.
template <class CommandLine, class Config>
Expected<CommandLine> with_prepared_plan(CommandLine out, Config config) {
  auto plan = prepare(std::move(config));
  if (!plan) return plan.error();
  out.plan = std::move(plan).value();
  return out;
}

// For a subcommand's main, after parsing into `parsed` (a type with `bool help` and
// `std::string help_text`): the exit code when the command stops here, 2 after printing the
// error as one line on stderr, 0 after printing the help on stdout; nullopt when it goes on.
template <class Parsed>
std::optional<int> exit_before_run(const Expected<Parsed>& parsed) {
  if (!parsed) {
    print_error_line(parsed.error().message);
    return 2;
  }
  if (parsed->help) {
    std::fputs(parsed->help_text.c_str(), stdout);
    return 0;
  }
  return std::nullopt;
}

// The same right after parse_cli_into(out, ...): `parsed` is its answer, `out` the command line
// it filled (its help text when the user asked for help).
template <class CommandLine>
std::optional<int> exit_before_run(const Expected<bool>& parsed, const CommandLine& out) {
  if (!parsed) {
    print_error_line(parsed.error().message);
    return 2;
  }
  if (*parsed) {
    std::fputs(out.help_text.c_str(), stdout);
    return 0;
  }
  return std::nullopt;
}

// The main of a subcommand that finds every refusal before it acts (compare, merge): parses
// `args` on `app` (stopping there on help or a parse error), turns them into its input with
// `read(args)` (a refusal: one line on stderr, exit 2), then returns `run(input)`, its exit code.
template <class CommandLine, class Read, class Run>
int read_then_run(CLI::App& app, CommandLine& args, int argc, const char* const* argv, Read read,
                  Run run) {
  const Expected<bool> parsed = parse_cli_into(args, app, argc, argv);
  if (const std::optional<int> code = exit_before_run(parsed, args)) return *code;
  auto input = read(args);
  if (!input) {
    print_error_line(input.error().message);
    return 2;
  }
  return run(*input);
}

}  // namespace stampede
