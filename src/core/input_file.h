// Reading a file the user named (a body file, a configuration file, a certificate) without
// trusting it: only a regular file is read, and at most a stated number of bytes, so a
// directory, a FIFO with no writer or /dev/zero is one error line instead of an exception, a
// hang or all of memory. Blocking I/O: for start-up, never on a worker's loop.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/expected.h"

namespace stampede {

inline constexpr std::size_t kMiB = std::size_t{1} << 20;

// The whole content of the regular file at `path`, when it holds at most `max_bytes`. Errors read
// "cannot read `what` 'path': reason" ("cannot read 'path': ..." when `what` is empty; reason:
// the errno text, "is a directory", "not a regular file", "larger than N MiB").
Expected<std::string> read_input_file(const std::string& path, std::size_t max_bytes,
                                      std::string_view what);

}  // namespace stampede
