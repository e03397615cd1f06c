// One request over a fresh loopback connection, answered until the peer closes: for HTTP/1.0
// and `Connection: close` exchanges (a scrape, a health check, a hostile head), where the close
// ends the answer. Blocking, IPv4 127.0.0.1 only, every wait bounded; no state of its own, so any
// thread may call it.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace stampede::testing {

// Connects to 127.0.0.1:`port`, sends `request` and returns all the peer sent until it closed
// ("" when the connection is refused, or closed without an answer). Each wait for bytes is
// bounded by `timeout`, and the reads by a count (at most 160 MiB), so a peer that stops
// answering without closing ends the read after `timeout` with what came so far.
std::string exchange_until_close(std::uint16_t port, std::string_view request,
                                 std::chrono::milliseconds timeout);

}  // namespace stampede::testing
