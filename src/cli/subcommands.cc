#include "cli/subcommands.h"

#include <array>
#include <string>

#include "cli/balance.h"
#include "cli/compare.h"
#include "cli/generator.h"
#include "cli/lab.h"
#include "cli/merge.h"
#include "cli/serve.h"

namespace stampede {
namespace {

constexpr std::array kSubcommands = {
    Subcommand{"", &loadgen::cli_main},         Subcommand{"serve", &server::cli_main},
    Subcommand{"balance", &balancer::cli_main}, Subcommand{"lab", &lab::cli_main},
    Subcommand{"merge", &loadgen::merge_main},  Subcommand{"compare", &loadgen::compare_main},
};

}  // namespace

std::span<const Subcommand> subcommands() {
  return kSubcommands;
}

const Subcommand& find_subcommand(std::string_view name) {
  for (const Subcommand& sub : kSubcommands) {
    if (!sub.name.empty() && sub.name == name) return sub;
  }
  return kSubcommands.front();
}

Expected<CommandDoc> describe_subcommand(const Subcommand& sub) {
  std::string program(sub.name.empty() ? "stampede" : sub.name);
  std::string argument(kDescribeArgument);
  char* argv[] = {program.data(), argument.data(), nullptr};
  try {
    const int status = sub.main(2, argv);
    const std::string command = sub.name.empty() ? "stampede" : "stampede " + program;
    return make_error(command + " returned " + std::to_string(status) +
                      " instead of describing its command line (does it parse with parse_cli?)");
  } catch (const CommandLineDescribed& described) {
    CommandDoc doc = described.doc();
    doc.subcommand = std::string(sub.name);
    return doc;
  }
}

}  // namespace stampede
