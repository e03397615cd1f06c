// The process's descriptor limit (RLIMIT_NOFILE). A server that runs out of descriptors fails
// accepts and connects that have nothing to do with its peers, so the balancer raises its soft
// limit to the hard one at start, as nginx's worker_rlimit_nofile and HAProxy do.
#pragma once

#include <cstdint>

namespace stampede {

// Raises the soft RLIMIT_NOFILE to the hard limit (best effort: a failure leaves it as it was)
// and returns the soft limit now in force. Process-wide: call from a main, before threads.
std::uint64_t raise_fd_limit();

}  // namespace stampede
