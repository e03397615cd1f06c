// Fuzz target: http::ResponseParser (the generator's and the balancer's side), over a server's
// byte stream. This is the part of the generator's response handling that needs no socket.
// Input: byte 0 flags (bit 0: the first response answers a HEAD; bit 1: finish() at the end, as
// when the server closes; bit 2: capture headers; bit 3: body callback; bit 4: also run a parser
// reused with reset() after a response cut short in its body), byte 1 the split point, then the
// stream (http_trace.h).
// Oracle: whole, split and byte-by-byte feeding give the same events, offsets, fields, captured
// values and body bytes; no completed head has both Content-Length and chunked; a
// Content-Length body delivers exactly Content-Length bytes; every error is a 502; a reset()
// parser gives the same trace as a new one.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "http/response_parser.h"
#include "http_trace.h"

namespace {

using stampede::http::Event;
using stampede::http::ResponseParser;

const std::vector<std::string> kCaptures = {"Content-Type", "x-backend", "set-cookie"};

// The parser and the body bytes of the current response (address stable for the callback).
struct Tracked {
  Tracked(bool capture, bool body_callback, bool head)
      : parser(capture ? kCaptures : std::vector<std::string>{}), first_is_head(head) {
    if (body_callback) {
      parser.set_body_callback([this](std::string_view chunk) { body.append(chunk); });
    }
    if (head) parser.expect_no_body();
    has_callback = body_callback;
  }
  stampede::http::Step feed(const char* data, std::size_t len) {
    const stampede::http::Step step = parser.feed(data, len);
    if (step.event == Event::Error) {
      FUZZ_CHECK(parser.error().status == 502, "error status %d", parser.error().status);
    }
    return step;
  }
  stampede::http::Step finish() { return parser.finish(); }
  const stampede::http::ParseError& error() const { return parser.error(); }

  ResponseParser parser;
  std::string body;
  bool first_is_head = false;
  bool has_callback = false;
  int messages = 0;
};

std::string describe(Tracked& t, Event event) {
  const ResponseParser& p = t.parser;
  const auto cl = p.content_length();
  FUZZ_CHECK(!(cl && p.chunked()), "a response with Content-Length %llu and chunked",
             static_cast<unsigned long long>(*cl));
  std::string out = std::to_string(p.status()) + " 1." + std::to_string(p.http_minor()) +
                    " ka=" + std::to_string(p.keep_alive()) + " te=" + std::to_string(p.chunked()) +
                    " cl=" + (cl ? std::to_string(*cl) : "-");
  for (std::size_t i = 0; i < kCaptures.size(); ++i) {
    const auto v = p.captured(i);
    if (v) out += " [" + kCaptures[i] + ":" + std::string(*v) + "]";
  }
  if (event == Event::MessageComplete) {
    const bool no_body = (t.first_is_head && t.messages == 0) || p.status() == 204 ||
                         p.status() == 304 || p.status() == 101;
    if (t.has_callback && no_body) FUZZ_CHECK(t.body.empty(), "body for a bodiless response");
    if (t.has_callback && cl && !no_body) {
      FUZZ_CHECK(t.body.size() == *cl, "body of %zu bytes for Content-Length %llu", t.body.size(),
                 static_cast<unsigned long long>(*cl));
    }
    out += " body=" + t.body;
    t.body.clear();
    ++t.messages;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const stampede::fuzz::HttpInput in = stampede::fuzz::split_input(data, size);
  const bool head = (in.flags & 1) != 0;
  const bool eof = (in.flags & 2) != 0;
  const bool capture = (in.flags & 4) != 0;
  const bool body_callback = (in.flags & 8) != 0;
  stampede::fuzz::check_split_invariance(
      in.stream, in.cut, eof,
      [&] { return std::make_unique<Tracked>(capture, body_callback, head); }, describe);
  if (in.flags & 16) {
    Tracked fresh(capture, body_callback, head);
    const auto expected = stampede::fuzz::run_chunks(fresh, in.stream, {}, eof, describe);
    Tracked reused(capture, body_callback, false);
    // Past the head (feed() stops there) and into the body, then abandoned.
    const std::string_view cut_short =
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Backend: old\r\n\r\nab";
    const auto head_step = reused.parser.feed(cut_short);
    reused.parser.feed(cut_short.substr(head_step.consumed));
    reused.parser.reset();
    reused.body.clear();
    if (head) reused.parser.expect_no_body();
    reused.first_is_head = head;
    const auto got = stampede::fuzz::run_chunks(reused, in.stream, {}, eof, describe);
    FUZZ_CHECK(got == expected, "a reset() parser gives another trace:\nnew:\n%sreset:\n%s",
               stampede::fuzz::join(expected).c_str(), stampede::fuzz::join(got).c_str());
  }
  return 0;
}
