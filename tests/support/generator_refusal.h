// The generator's parse of a command line, and its refusal of one, checked in the test's own
// process: for sweeps of
// bad input, where a start of the binary costs a quarter of a CPU second under ASan. The
// generator's main (loadgen::cli_main) runs parse_command_line() first and, when it refuses,
// prints "stampede: " + printable(message) on one line and exits 2 before it opens anything; the
// tests that sweep here start the binary for a few of the same values to check that end to end.
// Header-only: it needs stampede_cli, which only the binaries that include it link.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cli/generator.h"
#include "core/error_line.h"

namespace stampede::testing {

// The generator's parse of `args` (without the program name), with `rc_dir` as the folder that
// holds .loadtestrc: the request (plan and output choices) or the refusal.
inline Expected<loadgen::CliRequest> generator_command_line(const std::vector<std::string>& args,
                                                            const std::filesystem::path& rc_dir) {
  std::vector<const char*> argv{STAMPEDE_BINARY};
  for (const std::string& arg : args)
    argv.push_back(arg.c_str());
  return loadgen::parse_command_line(static_cast<int>(argv.size()), argv.data(), rc_dir);
}

// What the binary would print for `args` (without the program name) after "stampede: ", with
// `rc_dir` as the folder that holds .loadtestrc; nullopt when the parse accepts them.
inline std::optional<std::string> generator_refusal(const std::vector<std::string>& args,
                                                    const std::filesystem::path& rc_dir) {
  const auto parsed = generator_command_line(args, rc_dir);
  if (parsed) return std::nullopt;
  return printable(parsed.error().message);
}

}  // namespace stampede::testing
