// TestPipe: a non-blocking, close-on-exec pipe for event-loop tests; its read end becomes
// readable when put() writes a byte into it. A pipe that cannot be made fails the test (the ends
// stay invalid).
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "net/fd.h"

namespace stampede::testing {

struct TestPipe {
  TestPipe() {
    int fds[2];
    EXPECT_EQ(::pipe2(fds, O_NONBLOCK | O_CLOEXEC), 0);
    read_end = net::Fd(fds[0]);
    write_end = net::Fd(fds[1]);
  }
  // One byte into the pipe: its read end is readable until someone reads it.
  void put() { EXPECT_EQ(::write(write_end.get(), "x", 1), 1); }

  net::Fd read_end, write_end;
};

}  // namespace stampede::testing
