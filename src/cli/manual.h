// The manual pages and shell completions of the binary, written at build time by
// apps/stampede_manual.cc from the subcommands' own Apps (cli/subcommands.h), and installed
// (cmake/install.cmake) to share/man/man1, share/bash-completion/completions and
// share/zsh/vendor-completions.
#pragma once

#include <filesystem>
#include <string_view>

#include "core/expected.h"

namespace stampede {

// Writes into `out_dir` (made if missing): man1/<page>.1 for every subcommand (man1/*.1 left
// from an earlier build removed first), with the prose of `prose_dir`/<page>.txt when it exists;
// bash/stampede and zsh/_stampede. An Error names what could not be described or written.
Expected<void> write_manuals(const std::filesystem::path& out_dir,
                             const std::filesystem::path& prose_dir, std::string_view version);

}  // namespace stampede
