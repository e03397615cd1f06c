// The ready file: once a server listens, its port goes to a file that tests and the lab wait
// for instead of sleeping (serve and balance).
#pragma once

#include <cstdint>
#include <string>

#include "core/expected.h"

namespace stampede {

// Writes "<port>\n" to `path` atomically: to `path`.tmp first, then renamed over `path`, so a
// reader never sees a partial number.
Expected<void> write_ready_file(const std::string& path, std::uint16_t port);

}  // namespace stampede
