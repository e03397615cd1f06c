// Waiting for a child to be ready, bounded in time, watching for its exit and for Ctrl-C; the
// errors name the process and quote the end of what it printed.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "core/expected.h"
#include "lab/interrupt.h"
#include "lab/process.h"
#include "net/socket.h"

namespace stampede::lab {

// Until `path` holds a port (a `--ready-file` written with rename, so never half-written).
// Fails when the process ends first, when `timeout` passes, or on an interrupt.
Expected<std::uint16_t> wait_for_port_file(Process& process, const std::string& path,
                                           std::chrono::milliseconds timeout,
                                           const Interrupt& interrupt);

// Until a TCP connection to `address` is accepted. `process` (may be null: an external
// balancer) is watched for an early exit.
Expected<void> wait_for_listener(Process* process, const net::Address& address,
                                 std::chrono::milliseconds timeout, const Interrupt& interrupt);

// "balancer (rr) exited with exit status 1 before it was ready: stampede: ..."
Failure exited_early(Process& process, const ExitStatus& status);

}  // namespace stampede::lab
