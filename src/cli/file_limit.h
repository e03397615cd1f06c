// The generator's open-file check: a run whose connections cannot all be open at once is refused
// before it starts (they would fail with EMFILE, a local failure that would look like the
// server's). Counted for the connections this process opens: its shard's part of -c
// (--shard K/N, or its MPI rank), not the whole run's.
//
// check_file_limit is pure (tested with any limit); fit_file_limit reads and raises this
// process's RLIMIT_NOFILE (process-wide: call from a main).
#pragma once

#include <cstdint>

#include "core/expected.h"
#include "loadgen/config.h"

namespace stampede::loadgen {

// RLIMIT_NOFILE's soft and hard limits; `unlimited`: RLIM_INFINITY (nothing to check).
struct FileLimit {
  std::uint64_t soft = 0;
  std::uint64_t hard = 0;
  bool unlimited = false;
};

// About how many descriptors a run of `config` needs in this process, `open_now` being open
// already: its shard's connections, each worker's loop (epoll, eventfd) and a margin for files
// opened on the way (--html, TLS certificates and CA store, the resolver).
std::uint64_t descriptors_needed(const Config& config, std::uint64_t open_now);

// Refuses (one line for the user) a run that needs more than `limit.soft`.
Expected<void> check_file_limit(const Config& config, std::uint64_t open_now, FileLimit limit);

// Raises the soft limit to the hard one (as wrk, nginx and HAProxy do), then check_file_limit
// with the descriptors open in this process now.
Expected<void> fit_file_limit(const Config& config);

}  // namespace stampede::loadgen
