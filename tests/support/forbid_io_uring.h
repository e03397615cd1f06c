// forbid_io_uring(): from now on, io_uring_setup fails with EPERM in this process, as under a
// container's seccomp profile that forbids io_uring (Docker's default since 2023). For a death
// test's child only: a seccomp filter cannot be removed. Exits with status 3 when the filter
// cannot be installed, so the test fails rather than pass without it.
#pragma once

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <cstdio>
#include <cstdlib>
#include <iterator>

namespace stampede::testing {

inline void forbid_io_uring() {
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog program{static_cast<unsigned short>(std::size(filter)), filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
    std::perror("seccomp");
    std::exit(3);
  }
}

}  // namespace stampede::testing
