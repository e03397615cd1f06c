// What /proc says about a process a test started: its open descriptors, its CPU time and its
// resident set. Linux only; a figure that cannot be read is 0. Any thread.
#pragma once

#include <sys/types.h>

#include <cstddef>

namespace stampede::testing {

// Open descriptors of `pid` (entries of /proc/PID/fd).
std::size_t fd_count(pid_t pid);
// User plus system CPU time of `pid`, in milliseconds.
long cpu_ms(pid_t pid);
// VmRSS and VmHWM of `pid` from /proc/PID/status, in KiB (0 when unreadable).
struct Memory {
  long rss_kib = 0;
  long hwm_kib = 0;
};
Memory memory(pid_t pid);

}  // namespace stampede::testing
