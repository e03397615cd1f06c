// Split-invariance oracle for the pull-style HTTP parsers (RequestParser, ResponseParser),
// after tests/unit/http/grind.h but aborting instead of using GoogleTest.
//
// run_chunks() feeds a stream cut at given offsets the way a connection does (after each
// event, the rest of the chunk, possibly empty, is fed again until NeedMore) and returns the
// trace of events: "head@OFFSET desc", "msg@OFFSET desc", "error STATUS", "eof-clean".
// It checks on the way: consumed never exceeds what was given; NeedMore consumes everything;
// the number of events stays bounded (a parser that reports events without consuming bytes
// forever is a hang). A target then requires the same trace whole, split at a fuzzer-chosen
// point and byte by byte.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "http/parse_types.h"

namespace stampede::fuzz {

using Trace = std::vector<std::string>;

// Input layout shared by the HTTP targets: byte 0 flags, byte 1 the split point as a fraction
// of the stream (0..255), the rest the stream.
struct HttpInput {
  unsigned flags = 0;
  std::size_t cut = 0;
  std::string_view stream;
};

inline HttpInput split_input(const std::uint8_t* data, std::size_t size) {
  HttpInput in;
  in.stream = std::string_view("", 0);  // never a null pointer: llhttp adds 0 to it
  if (size < 2) return in;
  in.flags = data[0];
  in.stream = std::string_view(reinterpret_cast<const char*>(data) + 2, size - 2);
  in.cut = in.stream.size() * data[1] / 255;
  return in;
}

// `describe(parser, event)` returns the text recorded with a HeadComplete or MessageComplete
// (and may check invariants of the parser's state there).
template <class Parser, class Describe>
Trace run_chunks(Parser& parser, std::string_view input, const std::vector<std::size_t>& cuts,
                 bool eof, Describe&& describe) {
  Trace trace;
  std::size_t start = 0;
  std::vector<std::size_t> ends = cuts;
  ends.push_back(input.size());
  // Each message needs at least one byte: at most a head and a message event per byte, plus
  // the empty feeds after a message without a body.
  std::size_t budget = 4 * input.size() + 8;
  // The status only: which of two problems in the same head is named first may depend on
  // where the bytes were cut (llhttp's HPE_INVALID_HEADER_TOKEN or our BARE_LF, both 400).
  const auto error = [&] { trace.push_back("error " + std::to_string(parser.error().status)); };
  for (std::size_t end : ends) {
    std::size_t pos = start;
    for (;;) {
      FUZZ_CHECK(budget-- > 0, "too many events for %zu bytes: the parser does not progress",
                 input.size());
      const http::Step step = parser.feed(input.data() + pos, end - pos);
      FUZZ_CHECK(step.consumed <= end - pos, "consumed %zu of %zu bytes", step.consumed, end - pos);
      if (step.event == http::Event::Error) {
        error();
        return trace;
      }
      pos += step.consumed;
      if (step.event == http::Event::NeedMore) {
        FUZZ_CHECK(pos == end, "NeedMore at %zu, chunk ends at %zu", pos, end);
        break;
      }
      const bool head = step.event == http::Event::HeadComplete;
      trace.push_back((head ? "head@" : "msg@") + std::to_string(pos) + " " +
                      describe(parser, step.event));
    }
    start = end;
  }
  if (eof) {
    const http::Step step = parser.finish();
    if (step.event == http::Event::NeedMore) trace.push_back("eof-clean");
    if (step.event == http::Event::Error) error();
    if (step.event == http::Event::MessageComplete)
      trace.push_back("msg@eof " + describe(parser, step.event));
    FUZZ_CHECK(step.event != http::Event::HeadComplete, "finish() reported a head");
  }
  return trace;
}

inline std::string join(const Trace& trace) {
  std::string out;
  for (const std::string& line : trace)
    out += line + "\n";
  return out;
}

// Runs `input` with a fresh parser from `make` whole, split at `cut`, and (for inputs up to
// `bytewise_max` bytes) byte by byte; all three traces must be equal.
template <class Make, class Describe>
void check_split_invariance(std::string_view input, std::size_t cut, bool eof, Make&& make,
                            Describe&& describe, std::size_t bytewise_max = 512) {
  auto whole_parser = make();
  const Trace whole = run_chunks(*whole_parser, input, {}, eof, describe);
  if (cut > 0 && cut < input.size()) {
    auto parser = make();
    const Trace split = run_chunks(*parser, input, {cut}, eof, describe);
    FUZZ_CHECK(split == whole, "split at %zu changes the trace:\nwhole:\n%ssplit:\n%s", cut,
               join(whole).c_str(), join(split).c_str());
  }
  if (input.size() > 1 && input.size() <= bytewise_max) {
    std::vector<std::size_t> every;
    for (std::size_t i = 1; i < input.size(); ++i)
      every.push_back(i);
    auto parser = make();
    const Trace bytewise = run_chunks(*parser, input, every, eof, describe);
    FUZZ_CHECK(bytewise == whole, "byte by byte changes the trace:\nwhole:\n%sbytewise:\n%s",
               join(whole).c_str(), join(bytewise).c_str());
  }
}

}  // namespace stampede::fuzz
