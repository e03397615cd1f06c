// A burst of pipelined requests written in one send, and every response that came back until
// the peer closed: for the tests that check that serve and balance answer pipelined requests in
// order and stop at a malformed one. Over loopback.h (127.0.0.1, bounded waits); the responses
// are split by http::ResponseParser, so a response that is not valid HTTP shows as `garbled`.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace stampede::testing {

struct BurstReply {
  int status = 0;
  std::string body;
};

struct BurstResult {
  bool connected = false;
  std::vector<BurstReply> replies;  // in the order they arrived
  bool closed = false;              // the peer closed the connection (EOF or reset) after them
  bool garbled = false;             // bytes that were not a valid response (or one cut short)
};

// Connects to 127.0.0.1:`port`, sends `burst` (one send_all), then reads until the peer closes
// or nothing arrives for `quiet` (then `closed` is false).
BurstResult send_burst(std::uint16_t port, std::string_view burst,
                       std::chrono::milliseconds quiet = std::chrono::milliseconds(5000));

// The case both suites run: kBurstRequests requests in one write, the one at kBurstMalformed with
// a header line without a colon. burst_with_malformed builds it from `request(i)` for the others;
// expect_stopped_at_malformed checks what came back: the answers of the requests before it, in
// order, each 200 with the body `body_of(i)`, then its 400, then the close.
constexpr int kBurstRequests = 100;
constexpr int kBurstMalformed = 50;
std::string burst_with_malformed(const std::function<std::string(int)>& request);
void expect_stopped_at_malformed(const BurstResult& result,
                                 const std::function<std::string(int)>& body_of);

}  // namespace stampede::testing
