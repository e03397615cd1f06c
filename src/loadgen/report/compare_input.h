// One side of `stampede compare` read from a file: results written by --save (one line per run;
// other lines are skipped) or by --json (one run, or with --repeat N every run under "repeat").
// Outside input: the file is read once, bounded in size and nesting, and every way it can be
// wrong is one line naming the file (missing, not JSON, JSON of another kind, a run without
// requests, runs of different tests in one file). Blocking I/O, at start-up only.
#pragma once

#include <string>
#include <string_view>

#include "core/expected.h"
#include "loadgen/compare.h"

namespace stampede::loadgen {

// Files larger than this are refused (a --json result of 100 one-hour runs is about 50 MiB).
inline constexpr std::size_t kMaxCompareInputMiB = 256;

// The runs in `text`, named `name` in errors.
Expected<Side> parse_side(std::string_view text, const std::string& name);

// The runs in the file at `path`.
Expected<Side> read_side(const std::string& path);

}  // namespace stampede::loadgen
