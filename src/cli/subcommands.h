// The subcommands of the one binary, in one table: apps/stampede.cc dispatches through it, and
// the manual writer (apps/stampede_manual.cc) writes a man page for each entry and the shell
// completions for all of them, so a subcommand added here has its page and completion with no
// other list to update.
#pragma once

#include <span>
#include <string_view>

#include "cli/command_doc.h"
#include "core/expected.h"

namespace stampede {

struct Subcommand {
  // argv[1] that selects it; empty for the generator, which runs when no other name matches.
  std::string_view name;
  // Its main: argv[0] is the name ("serve"), or the program for the generator.
  int (*main)(int argc, char** argv);
};

// The generator first, then the others in the order of `stampede --help`'s mention of them.
std::span<const Subcommand> subcommands();

// The entry named `name`, or the generator's when none is.
const Subcommand& find_subcommand(std::string_view name);

// The document of `sub`'s command line, read by calling its main with kDescribeArgument alone
// (cli/command_doc.h), with its `subcommand` set; an Error when the main returns instead (it
// does not parse through parse_cli).
Expected<CommandDoc> describe_subcommand(const Subcommand& sub);

}  // namespace stampede
