// ResponseParser's repeat (a response whose bytes equal the last one's is reported without
// running llhttp again): it must give exactly the events and verdicts a full parse gives, so
// each case here feeds a stream of responses to a parser and compares with a parser that parses
// every response afresh (one new parser per response, which keeps no repeat).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "http/response_parser.h"

namespace stampede::http {
namespace {

const std::string kOk = "HTTP/1.1 200 OK\r\nServer: x\r\nContent-Length: 2\r\n\r\nHT";

// Feeds `stream` from each event's end on, then finish() unless `end` is false: the events as
// text ("head 200 ka=1 +N", "done +N", "error NAME"); `head_before`: indexes of responses
// answering HEAD.
std::vector<std::string> run(ResponseParser& p, const std::string& stream,
                             const std::vector<std::size_t>& head_before = {}, bool end = true) {
  std::vector<std::string> out;
  std::size_t at = 0;
  std::size_t responses = 0;
  for (int guard = 0; guard < 10000; ++guard) {
    if (std::find(head_before.begin(), head_before.end(), responses) != head_before.end()) {
      p.expect_no_body();
    }
    const Step step = p.feed(stream.data() + at, stream.size() - at);
    at += step.consumed;
    if (step.event == Event::HeadComplete) {
      out.push_back("head " + std::to_string(p.status()) + " ka=" + std::to_string(p.keep_alive()) +
                    " +" + std::to_string(step.consumed));
    } else if (step.event == Event::MessageComplete) {
      out.push_back("done +" + std::to_string(step.consumed));
      ++responses;
    } else if (step.event == Event::Error) {
      out.push_back(std::string("error ") + std::string(p.error().name));
      return out;
    } else {
      break;
    }
  }
  if (!end) return out;
  const Step last = p.finish();
  out.push_back(last.event == Event::Error
                    ? std::string("finish error ") + std::string(p.error().name)
                    : "finish " + std::to_string(int(last.event)));
  return out;
}

TEST(ResponseRepeat, RepeatsGetTheEventsOfAFullParse) {
  const std::string stream = kOk + kOk + kOk + kOk;
  ResponseParser p;
  const auto events = run(p, stream);
  ASSERT_EQ(events.size(), 9u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(events[2 * i], "head 200 ka=1 +49");
    EXPECT_EQ(events[2 * i + 1], "done +2");
  }
  EXPECT_EQ(events[8], "finish 0");
  EXPECT_EQ(p.repeated(), 3u);
}

// A response that differs from the repeated one is parsed, and refused where it is bad, however
// close to the repeat it is: each of these is the repeat with one byte changed or cut.
TEST(ResponseRepeat, ABadResponseAfterRepeatsIsStillRefused) {
  const std::vector<std::string> bad = {
      "HTTP/1.1 200 OK\r\nServer: x\nContent-Length: 2\r\n\r\nHT",     // bare LF
      "HTTP/1.1 200 OK\r\nServer: x\r\nContent-Length: 2\r\n\r\nH",    // cut short
      "HTTP/1.1 2000 OK\r\nServer: x\r\nContent-Length: 2\r\n\r\nHT",  // four-digit status
      "HTTP/1.1 200 O\x01\r\nServer: x\r\nContent-Length: 2\r\n\r\nHT",
      "HTTP/1.1 200 OK\r\nServer: x\r\nContent-Length: 2\r\n\r\nHTX",  // a stray byte
  };
  for (const std::string& last : bad) {
    ResponseParser repeated;
    const auto got = run(repeated, kOk + kOk + kOk + last);
    ResponseParser fresh;
    auto want = run(fresh, kOk);
    want.pop_back();  // its finish
    std::vector<std::string> expected = want;
    expected.insert(expected.end(), want.begin(), want.end());
    expected.insert(expected.end(), want.begin(), want.end());
    ResponseParser alone;
    const auto tail = run(alone, last);
    expected.insert(expected.end(), tail.begin(), tail.end());
    EXPECT_EQ(got, expected) << last;
    EXPECT_NE(got.back().find("error"), std::string::npos) << last;
  }
}

// A response to HEAD has no body whatever its Content-Length says: the bytes after its head
// belong to the next response, even where they equal the repeat's body ("HT" of "HTTP/1.1").
TEST(ResponseRepeat, AHeadResponseIsNeverTakenForTheRepeat) {
  const std::string head_only = "HTTP/1.1 200 OK\r\nServer: x\r\nContent-Length: 2\r\n\r\n";
  ResponseParser p;
  const auto events = run(p, kOk + kOk + head_only + kOk, {2});
  const std::vector<std::string> expected = {
      "head 200 ka=1 +49", "done +2",           "head 200 ka=1 +49", "done +2", "head 200 ka=1 +49",
      "done +0",           "head 200 ka=1 +49", "done +2",           "finish 0"};
  EXPECT_EQ(events, expected);
}

// What a repeat reports (status, version, framing) is its own, not the last response's.
TEST(ResponseRepeat, AResponseBetweenRepeatsDoesNotChangeWhatTheyReport) {
  const std::string other =
      "HTTP/1.0 404 Not Found\r\nConnection: keep-alive\r\nContent-Length: 3\r\n\r\nabc";
  ResponseParser p;
  const std::string stream = kOk + kOk + other + kOk;
  std::size_t at = 0;
  std::vector<std::string> heads;
  for (int i = 0; i < 8; ++i) {
    const Step step = p.feed(stream.data() + at, stream.size() - at);
    ASSERT_NE(step.event, Event::Error);
    at += step.consumed;
    if (step.event == Event::HeadComplete) {
      heads.push_back(std::to_string(p.status()) + " 1." + std::to_string(p.http_minor()) +
                      " cl=" + std::to_string(p.content_length().value_or(99)) +
                      " te=" + std::to_string(p.chunked()));
    }
  }
  EXPECT_EQ(at, stream.size());
  const std::vector<std::string> expected = {"200 1.1 cl=2 te=0", "200 1.1 cl=2 te=0",
                                             "404 1.0 cl=3 te=0", "200 1.1 cl=2 te=0"};
  EXPECT_EQ(heads, expected);
}

// The end of the stream between a repeat's head and its body cuts that response short.
TEST(ResponseRepeat, EndAfterARepeatsHeadIsTruncated) {
  ResponseParser p;
  const std::string stream = kOk + kOk;
  ASSERT_EQ(p.feed(stream.data(), stream.size()).event, Event::HeadComplete);
  ASSERT_EQ(p.feed(stream.data() + 49, 2).event, Event::MessageComplete);
  const Step head = p.feed(stream.data() + 51, stream.size() - 51);
  ASSERT_EQ(head.event, Event::HeadComplete);
  EXPECT_EQ(p.finish().event, Event::Error);
  EXPECT_EQ(p.error().name, "HPE_INVALID_EOF_STATE");
}

// reset() (a new connection; a balancer resets at every attempt) keeps the repeat: what each
// connection's responses get, good or bad, is what a parser that parses them afresh gives.
TEST(ResponseRepeat, AResetKeepsTheVerdictsOfAFullParse) {
  const std::vector<std::string> streams = {
      kOk + kOk,
      kOk.substr(0, 30),                                            // cut in its head
      kOk.substr(0, 50),                                            // cut in its body
      "HTTP/1.1 200 OK\r\nServer: x\nContent-Length: 2\r\n\r\nHT",  // bare LF
      kOk + "X",                                                    // a stray byte after it
      "HTTP/1.1 200 OK\r\nServer: x\r\nConnection: close\r\nContent-Length: 2\r\n\r\nHT",
  };
  ResponseParser kept;
  ASSERT_EQ(run(kept, kOk).back(), "finish 0");  // kOk is now the repeat
  for (const std::string& stream : streams) {
    kept.reset();
    ResponseParser fresh;
    EXPECT_EQ(run(kept, stream), run(fresh, stream)) << stream;
  }
  // A HEAD answered on the new connection: its body-less head is not taken for the repeat.
  kept.reset();
  ResponseParser fresh;
  EXPECT_EQ(run(kept, kOk + kOk, {0}), run(fresh, kOk + kOk, {0}));
}

// kOk with a header that makes it the i-th of a run of responses that all differ.
std::string numbered(int i) {
  return "HTTP/1.1 200 OK\r\nX-N: " + std::to_string(i) + "\r\nContent-Length: 2\r\n\r\nHT";
}

// Feeds `responses` one by one to `p`: for each, whether the repeat reported it ('r') or llhttp
// parsed it ('p'); every one must get the events of a full parse.
std::string feed_each(ResponseParser& p, const std::vector<std::string>& responses) {
  std::string how;
  for (const std::string& response : responses) {
    const std::uint64_t before = p.repeated();
    const std::vector<std::string> got = run(p, response, {}, false);
    ResponseParser fresh;
    EXPECT_EQ(got, run(fresh, response, {}, false)) << response;
    how += p.repeated() > before ? 'r' : 'p';
  }
  return how;
}

// One response that differs (a Date that changed) becomes the repeat at once.
TEST(ResponseRepeat, OneDifferentResponseIsTheNextRepeat) {
  ResponseParser p;
  const std::string other = numbered(1);
  EXPECT_EQ(feed_each(p, {kOk, kOk, kOk, other, other, other, kOk, kOk}), "prrprrpr");
}

// Responses that all differ: each costs a failed comparison, and after a few only one in
// kRecordOneIn is recorded; once they repeat again, the repeat resumes within kRecordOneIn.
TEST(ResponseRepeat, RecordingBacksOffWhileResponsesDifferAndResumes) {
  std::vector<std::string> responses;
  for (int i = 0; i < 10; ++i)
    responses.push_back(numbered(i));
  for (int i = 0; i < 2 * ResponseParser::kRecordOneIn; ++i)
    responses.push_back(kOk);
  ResponseParser p;
  const std::string how = feed_each(p, responses);
  EXPECT_EQ(how.substr(0, 10), std::string(10, 'p'));
  const std::string same = how.substr(10);
  const std::size_t first_repeat = same.find('r');
  ASSERT_NE(first_repeat, std::string::npos) << same;
  EXPECT_LE(first_repeat, std::size_t{ResponseParser::kRecordOneIn}) << same;
  EXPECT_GT(first_repeat, 1u) << same;  // backed off: not recorded at its first appearance
  EXPECT_EQ(same.find('p', first_repeat), std::string::npos) << same;
}

// The back-off outlives reset(), as the repeat does (a balancer resets at every attempt).
TEST(ResponseRepeat, ResetKeepsTheBackOff) {
  ResponseParser p;
  for (int i = 0; i < 10; ++i) {
    p.reset();
    ASSERT_EQ(feed_each(p, {numbered(i)}), "p");
  }
  p.reset();
  EXPECT_EQ(feed_each(p, {kOk, kOk, kOk}), "ppp");
}

}  // namespace
}  // namespace stampede::http
