// A tiny blocking HTTP/1.1 client for the lab's control requests (/count, /reset, /lb-stats, a
// balancer's first answer): one GET per fresh connection, loopback addresses only, every step
// bounded by one overall timeout. Not for load: the generator does that.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/expected.h"
#include "net/socket.h"

namespace stampede::lab {

struct HttpReply {
  int status = 0;
  std::string body;  // at most 1 MiB is kept
};

// GET `target` from `address` with `Connection: close`. Errors name the step that failed:
// "connection refused", "no response within 2000 ms", "malformed response"... Addresses other
// than loopback ones are refused without a connection attempt.
Expected<HttpReply> http_get(const net::Address& address, std::string_view target,
                             std::chrono::milliseconds timeout);

// True when a TCP connection to `address` is accepted within `timeout` (then closed at once).
bool can_connect(const net::Address& address, std::chrono::milliseconds timeout);

// A port that was free on `host` a moment ago (bound to port 0, then closed). For a balancer
// command that has to be told its port; another program may take it in between.
Expected<std::uint16_t> pick_free_port(std::string_view host);

}  // namespace stampede::lab
