// Parser grinding (after Boost.Beast's parsegrind): run the same input through a parser fed
// whole, split at every byte position, and byte by byte, and require the same trace of events.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "http/parse_types.h"

namespace stampede::http::testing {

using Trace = std::vector<std::string>;

// How a test describes the parser's state at an event, e.g. "GET / ka=1".
template <class Parser>
using Describe = std::function<std::string(const Parser&)>;

// Feeds `input` cut at `cuts` (ascending offsets) the way a connection would: after each
// event, the rest of the chunk (possibly empty) is fed again until NeedMore. Records
// "head@OFFSET desc", "msg@OFFSET desc" and "error STATUS"; offsets are absolute in `input`.
// With `eof`, finish() is called at the end and its event is recorded with offset "eof".
template <class Parser>
Trace run_chunks(Parser& parser, std::string_view input, const std::vector<std::size_t>& cuts,
                 bool eof, const Describe<Parser>& describe) {
  Trace trace;
  std::size_t start = 0;
  std::vector<std::size_t> ends = cuts;
  ends.push_back(input.size());
  const auto record = [&](Step step, std::string offset) {
    if (step.event == Event::HeadComplete)
      trace.push_back("head@" + offset + " " + describe(parser));
    if (step.event == Event::MessageComplete)
      trace.push_back("msg@" + offset + " " + describe(parser));
    if (step.event == Event::Error) trace.push_back(fmt::format("error {}", parser.error().status));
  };
  for (std::size_t end : ends) {
    std::size_t pos = start;
    for (int guard = 0; guard < 1000; ++guard) {
      const Step step = parser.feed(input.data() + pos, end - pos);
      EXPECT_LE(step.consumed, end - pos);
      pos += step.consumed;
      if (step.event == Event::Error) {
        record(step, "");
        return trace;
      }
      if (step.event == Event::NeedMore) {
        EXPECT_EQ(pos, end) << "NeedMore must consume everything";
        break;
      }
      record(step, std::to_string(pos));
    }
    start = end;
  }
  if (eof) {
    const Step step = parser.finish();
    if (step.event == Event::NeedMore) trace.push_back("eof-clean");
    record(step, "eof");
  }
  return trace;
}

// Runs `input` whole, split in two at every position in [1, size) taken every `stride`, and
// byte by byte, each with a fresh parser from `make`; expects identical traces and returns
// the whole-input one.
template <class Parser>
Trace grind(std::string_view input, const std::function<Parser()>& make,
            const Describe<Parser>& describe, bool eof = false, std::size_t stride = 1) {
  Parser whole_parser = make();
  const Trace whole = run_chunks(whole_parser, input, {}, eof, describe);
  for (std::size_t cut = 1; cut < input.size(); cut += stride) {
    Parser parser = make();
    EXPECT_EQ(run_chunks(parser, input, {cut}, eof, describe), whole) << "split at " << cut;
  }
  std::vector<std::size_t> every;
  for (std::size_t i = 1; i < input.size(); ++i)
    every.push_back(i);
  Parser bytewise = make();
  EXPECT_EQ(run_chunks(bytewise, input, every, eof, describe), whole) << "byte by byte";
  return whole;
}

// Feeds `input` whole to `parser` (the rest fed again after each event, at most 100 steps) and
// returns the error of the first Failure step; a default ParseError (status 0) when there is none.
template <class Parser>
ParseError first_error(Parser&& parser, std::string_view input) {
  std::size_t pos = 0;
  for (int i = 0; i < 100; ++i) {
    const Step s = parser.feed(input.data() + pos, input.size() - pos);
    pos += s.consumed;
    if (s.event == Event::Error) return parser.error();
    if (s.event == Event::NeedMore) break;
  }
  return ParseError{};
}

}  // namespace stampede::http::testing
