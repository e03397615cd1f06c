// Bash and zsh completion scripts for every subcommand and option, from the CommandDocs of the
// subcommands (cli/command_doc.h), the same App their --help prints, so they cannot drift.
//
// What they complete: the subcommand names as the first word; after `-`, the options of the
// subcommand given as the first word (of the generator when none is); after an option that takes
// a value, its choices when --help names them as "a|b|c", files when the value is a PATH or a
// FILE, nothing otherwise; other words: files when a positional is a FILE or PATH. Pure: no I/O.
#pragma once

#include <span>
#include <string>

#include "cli/command_doc.h"

namespace stampede {

// share/bash-completion/completions/stampede: defines _stampede and binds it to `stampede`.
std::string write_bash_completion(std::span<const CommandDoc> docs);

// share/zsh/vendor-completions/_stampede (#compdef stampede).
std::string write_zsh_completion(std::span<const CommandDoc> docs);

}  // namespace stampede
