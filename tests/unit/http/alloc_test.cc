// Steady state must not allocate: parsing a response or a request, and writing a response head
// into a reused buffer. Counts calls to the global operator new, replaced in this binary.
#include <gtest/gtest.h>

#include <string>

#include "http/request_parser.h"
#include "http/response_parser.h"
#include "http/writer.h"
#include "support/counting_new.h"

namespace stampede::http {
namespace {

// Feeds `stream` through `parser` like a connection would; returns the messages completed.
template <class Parser>
int parse_all(Parser& parser, std::string_view stream) {
  int messages = 0;
  std::size_t pos = 0;
  for (int guard = 0; guard < 10000; ++guard) {
    const Step s = parser.feed(stream.data() + pos, stream.size() - pos);
    pos += s.consumed;
    if (s.event == Event::MessageComplete) ++messages;
    if (s.event == Event::Error) return -1;
    if (s.event == Event::NeedMore) break;
  }
  return messages;
}

const std::string kResponses =
    "HTTP/1.1 100 Continue\r\n\r\n"
    "HTTP/1.1 200 OK\r\nX-Instance: a1\r\nX-Backend: b\r\nContent-Length: 2\r\n\r\nOK"
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Backend: " +
    std::string(100, 'b') +
    "\r\n\r\n5;e=1\r\nhello\r\n0\r\nT: 1\r\n\r\n"
    "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";

TEST(SteadyState, ResponseParserDoesNotAllocate) {
  for (bool capture : {false, true}) {
    ResponseParser parser(capture ? std::vector<std::string>{"x-instance", "x-backend"}
                                  : std::vector<std::string>{});
    std::size_t body_bytes = 0;
    parser.set_body_callback([&](std::string_view chunk) { body_bytes += chunk.size(); });
    ASSERT_EQ(parse_all(parser, kResponses), 3);  // warm-up: buffers reach their size
    const long before = stampede::test::allocations.load();
    int messages = 0;
    for (int i = 0; i < 1000; ++i)
      messages += parse_all(parser, kResponses);
    EXPECT_EQ(stampede::test::allocations.load() - before, 0) << "capture=" << capture;
    EXPECT_EQ(messages, 3000);
    EXPECT_EQ(body_bytes, 1001u * 7);
  }
}

TEST(SteadyState, RequestParserDoesNotAllocate) {
  const std::string requests =
      "GET /a?x=1 HTTP/1.1\r\nHost: h\r\nUser-Agent: stampede\r\nAccept: */*\r\n\r\n"
      "POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nX-Long: " +
      std::string(500, 'v') +
      "\r\n\r\nabc"
      "PUT /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nT: "
      "1\r\n\r\n";
  RequestParser parser;
  ASSERT_EQ(parse_all(parser, requests), 3);
  const long before = stampede::test::allocations.load();
  int messages = 0;
  for (int i = 0; i < 1000; ++i)
    messages += parse_all(parser, requests);
  EXPECT_EQ(stampede::test::allocations.load() - before, 0);
  EXPECT_EQ(messages, 3000);
}

TEST(SteadyState, ResponseHeadWriterDoesNotAllocate) {
  std::string out;
  out.reserve(256);
  const Header extra[] = {{"Content-Type", "text/plain"}, {"X-Instance", "s1"}};
  const long before = stampede::test::allocations.load();
  for (int i = 0; i < 1000; ++i) {
    out.clear();
    append_response_head(out, 200 + i % 300, extra, static_cast<std::uint64_t>(i) * 1000, i % 2);
  }
  EXPECT_EQ(stampede::test::allocations.load() - before, 0);
  EXPECT_EQ(out,
            "HTTP/1.1 299 \r\nContent-Type: text/plain\r\nX-Instance: s1\r\n"
            "Content-Length: 999000\r\nConnection: keep-alive\r\n\r\n");
}

}  // namespace
}  // namespace stampede::http
