// Plain loopback sockets for tests that play a peer by hand (a backend that misbehaves, a client
// that sends raw bytes, a listener that never answers): IPv4 127.0.0.1 only, port 0 so the
// kernel picks a free port, descriptors owned by net::Fd, every wait bounded by its timeout.
// Free functions with no state of their own: any thread may call them, each on its own
// descriptors.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "net/fd.h"

namespace stampede::testing {

// A listening socket and the port it got.
struct LoopbackListener {
  net::Fd fd;
  std::uint16_t port = 0;
};

// Listens on 127.0.0.1, port 0, with `backlog`; `flags` may add SOCK_NONBLOCK. Throws
// std::runtime_error (failing the test) when it cannot.
LoopbackListener listen_loopback(int backlog = 16, int flags = 0);
// The same on another IPv4 `address` of this thread's network namespace (a test's own
// namespace: tests/integration/netns).
LoopbackListener listen_ipv4(const char* address, int backlog, int flags);

// A port of 127.0.0.1 nothing listens on now: the kernel's pick for a socket bound to port 0,
// released at once. For peers that take no port 0 (nginx, nghttpd); another process may take
// it in between, which such a test then reports as its peer failing to start.
std::uint16_t unused_loopback_port();

// Waits up to `timeout` for a connection on `listener` and accepts it (a blocking, CLOEXEC
// descriptor); invalid on timeout, on error, or once the listener is shut down.
net::Fd accept_within(int listener, std::chrono::milliseconds timeout);

// A blocking connection to 127.0.0.1:`port` with TCP_NODELAY; invalid when refused.
net::Fd connect_loopback(std::uint16_t port);

// Sends all of `bytes` (MSG_NOSIGNAL: a closed peer is a false, not a SIGPIPE); false when the
// peer is gone or a send timeout set on `fd` expires.
bool send_all(int fd, std::string_view bytes);

// One recv of at most `capacity` bytes into `buffer`, as ::recv, but tried again when
// interrupted: in a process that runs io_uring loops (STAMPEDE_TEST_IO=uring), a blocking call on
// a socket with a timeout (SO_RCVTIMEO) fails now and then with EINTR although no signal came.
// send_all retries the same way.
ssize_t recv_some(int fd, char* buffer, std::size_t capacity);

// Waits up to `timeout` for `fd` to be readable, at EOF or in error; false on timeout.
bool wait_readable(int fd, std::chrono::milliseconds timeout);

}  // namespace stampede::testing
