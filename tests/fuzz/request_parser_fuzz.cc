// Fuzz target: http::RequestParser (server side), over a connection's byte stream.
// Input: byte 0 flags (bit 0: small ParserLimits, to reach 413/414/431; bit 1: finish() at the
// end, as when the client closes; bit 2: also run a parser reused with reset() after a request
// cut short in its body, as a pooled connection does), byte 1 the split point, then the stream
// (http_trace.h).
// Oracle: whole, split and byte-by-byte feeding give the same events, offsets and request
// fields; no completed head has both Content-Length and chunked; a Content-Length body spans
// exactly Content-Length bytes; no error without a status the server can answer with; a reset()
// parser gives the same trace as a new one.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "http/request_parser.h"
#include "http_trace.h"

namespace {

using stampede::http::Event;
using stampede::http::ParserLimits;
using stampede::http::RequestParser;

// The request parser and the offset of the last head, for the body length check.
struct Tracked {
  explicit Tracked(ParserLimits limits) : parser(limits) {}
  stampede::http::Step feed(const char* data, std::size_t len) {
    const stampede::http::Step step = parser.feed(data, len);
    absolute += step.consumed;
    if (step.event == Event::HeadComplete) head_end = absolute;
    if (step.event == Event::Error) {
      const int s = parser.error().status;
      FUZZ_CHECK(s == 400 || s == 413 || s == 414 || s == 431 || s == 505, "error status %d", s);
    }
    return step;
  }
  stampede::http::Step finish() { return parser.finish(); }
  const stampede::http::ParseError& error() const { return parser.error(); }

  RequestParser parser;
  std::size_t absolute = 0;  // bytes consumed so far in the stream
  std::size_t head_end = 0;
};

std::string describe(const Tracked& t, Event event) {
  const RequestParser& p = t.parser;
  const auto cl = p.content_length();
  FUZZ_CHECK(!(cl && p.chunked()), "a request with Content-Length %llu and chunked",
             static_cast<unsigned long long>(*cl));
  if (event == Event::MessageComplete && cl && !p.upgrade()) {
    FUZZ_CHECK(t.absolute - t.head_end == *cl, "body of %zu bytes for Content-Length %llu",
               t.absolute - t.head_end, static_cast<unsigned long long>(*cl));
  }
  std::string out =
      std::string(p.method()) + " " + std::string(p.target()) + " 1." +
      std::to_string(p.http_minor()) + " ka=" + std::to_string(p.keep_alive()) +
      " te=" + std::to_string(p.chunked()) + " cl=" + (cl ? std::to_string(*cl) : "-") +
      " up=" + std::to_string(p.upgrade()) + " ec=" + std::to_string(p.expect_continue());
  FUZZ_CHECK(p.path().size() <= p.target().size(), "path longer than the target");
  for (const auto& h : p.headers())
    out += " [" + std::string(h.name) + ":" + std::string(h.value) + "]";
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const stampede::fuzz::HttpInput in = stampede::fuzz::split_input(data, size);
  ParserLimits limits;
  if (in.flags & 1) {
    limits.max_header_bytes = 200;
    limits.max_uri_bytes = 40;
    limits.max_body_bytes = 100;
  }
  const bool eof = (in.flags & 2) != 0;
  stampede::fuzz::check_split_invariance(
      in.stream, in.cut, eof, [&] { return std::make_unique<Tracked>(limits); }, describe);
  if (in.flags & 4) {
    Tracked fresh(limits);
    const auto expected = stampede::fuzz::run_chunks(fresh, in.stream, {}, eof, describe);
    Tracked reused(limits);
    // Past the head (feed() stops there) and into the body, then abandoned.
    const std::string_view cut_short = "POST /x HTTP/1.1\r\nContent-Length: 5\r\n\r\nab";
    const auto head_step = reused.parser.feed(cut_short);
    reused.parser.feed(cut_short.substr(head_step.consumed));
    reused.parser.reset();
    const auto got = stampede::fuzz::run_chunks(reused, in.stream, {}, eof, describe);
    FUZZ_CHECK(got == expected, "a reset() parser gives another trace:\nnew:\n%sreset:\n%s",
               stampede::fuzz::join(expected).c_str(), stampede::fuzz::join(got).c_str());
  }
  return 0;
}
