#include "support/pipelined_burst.h"

#include <gtest/gtest.h>

#include <errno.h>
#include <unistd.h>

#include "http/response_parser.h"
#include "support/loopback.h"

namespace stampede::testing {
namespace {

// Splits `bytes` into responses; false when they are not (all) valid responses.
bool parse_replies(const std::string& bytes, std::vector<BurstReply>& replies) {
  http::ResponseParser parser;
  std::string body;
  parser.set_body_callback([&body](std::string_view chunk) { body.append(chunk); });
  const char* data = bytes.data();
  std::size_t length = bytes.size();
  while (length > 0) {
    const http::Step step = parser.feed(data, length);
    data += step.consumed;
    length -= step.consumed;
    if (step.event == http::Event::Error) return false;
    if (step.event == http::Event::MessageComplete) {
      replies.push_back({parser.status(), std::move(body)});
      body.clear();
      if (!parser.keep_alive()) break;  // anything after it is garbage
    }
    if (step.event == http::Event::NeedMore) break;
  }
  return length == 0 && parser.finish().event != http::Event::Error;
}

}  // namespace

BurstResult send_burst(std::uint16_t port, std::string_view burst,
                       std::chrono::milliseconds quiet) {
  BurstResult result;
  const net::Fd fd = connect_loopback(port);
  result.connected = fd.valid() && send_all(fd.get(), burst);
  if (!result.connected) return result;
  std::string bytes;
  char buffer[16384];
  while (wait_readable(fd.get(), quiet)) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      result.closed = true;
      break;
    }
    bytes.append(buffer, static_cast<std::size_t>(n));
  }
  result.garbled = !parse_replies(bytes, result.replies);
  return result;
}

std::string burst_with_malformed(const std::function<std::string(int)>& request) {
  std::string burst;
  for (int i = 0; i < kBurstRequests; ++i)
    burst +=
        i == kBurstMalformed ? "GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n" : request(i);
  return burst;
}

void expect_stopped_at_malformed(const BurstResult& result,
                                 const std::function<std::string(int)>& body_of) {
  ASSERT_TRUE(result.connected);
  EXPECT_FALSE(result.garbled);
  EXPECT_TRUE(result.closed);
  ASSERT_EQ(result.replies.size(), static_cast<std::size_t>(kBurstMalformed + 1));
  for (int i = 0; i < kBurstMalformed; ++i) {
    EXPECT_EQ(result.replies[i].status, 200) << i;
    EXPECT_EQ(result.replies[i].body, body_of(i)) << i;  // its own, in order
  }
  EXPECT_EQ(result.replies.back().status, 400);
}

}  // namespace stampede::testing
