// HeadChecker's header-line scan looks for a line's first CR or LF 16 bytes at a time, and
// re-reads the 16 bytes before the end of what it was given for the last ones: a bad CR or LF
// at any offset of lines of any length, whole or in two pieces cut anywhere, gets the verdict
// of the rules in head_checker.h, and clean lines none.
#include <gtest/gtest.h>

#include <string>

#include "http/head_checker.h"

namespace stampede::http {
namespace {

// The error name of scanning `head` in two pieces cut at `cut` ("" when none).
std::string checker_verdict(HeadKind kind, const std::string& head, std::size_t cut) {
  HeadChecker checker(kind);
  std::optional<ParseError> error = checker.scan(head.data(), cut);
  if (!error) error = checker.scan(head.data() + cut, head.size() - cut);
  return error ? std::string(error->name) : std::string();
}

// Every cut of `head`, the whole one (cut at its end) included, gets `want`.
void expect_at_every_cut(HeadKind kind, const std::string& head, const std::string& want) {
  for (std::size_t cut = 0; cut <= head.size(); ++cut) {
    ASSERT_EQ(checker_verdict(kind, head, cut), want)
        << ::testing::PrintToString(head) << " cut " << cut;
  }
}

std::string value_of(std::size_t len) {
  std::string v;
  for (std::size_t i = 0; i < len; ++i)
    v += static_cast<char>('a' + i % 26);
  return v;
}

TEST(HeadCheckerScan, CleanLinesOfEveryLengthPass) {
  for (std::size_t len = 0; len <= 40; ++len) {
    const std::string fields =
        "X-A: " + value_of(len) + "\r\nB: " + value_of(40 - len) + "\r\n\r\n";
    expect_at_every_cut(HeadKind::Request, "GET / HTTP/1.1\r\n" + fields, "");
    expect_at_every_cut(HeadKind::Response, "HTTP/1.1 200 OK\r\n" + fields, "");
  }
}

TEST(HeadCheckerScan, ABareCrOrLfAtEveryOffsetIsFound) {
  const std::string value = value_of(40);
  for (std::size_t at = 0; at <= value.size(); ++at) {
    const std::string before = "GET / HTTP/1.1\r\nHost: h\r\nX-A: " + value.substr(0, at);
    const std::string after = value.substr(at) + "\r\n\r\n";
    expect_at_every_cut(HeadKind::Request, before + "\r" + after, "BARE_CR");
    expect_at_every_cut(HeadKind::Request, before + "\n" + after, "BARE_LF");
    // A CR before the line's own CRLF, and a line ended by a bare LF.
    expect_at_every_cut(HeadKind::Request, before + "\r\r\n\r\n", "BARE_CR");
    expect_at_every_cut(HeadKind::Request, before + "\n\r\n", "BARE_LF");
  }
}

// What decides between two errors in one line stays the rule's order: the start of the line,
// then a bare CR anywhere in it, then its bare LF.
TEST(HeadCheckerScan, TheFirstRuleBrokenIsReported) {
  expect_at_every_cut(HeadKind::Request, "GET / HTTP/1.1\r\n X: a\rb\n\r\n", "OBS_FOLD");
  expect_at_every_cut(HeadKind::Request, "GET / HTTP/1.1\r\n:X a\rb\r\n\r\n",
                      "INVALID_HEADER_TOKEN");
  expect_at_every_cut(HeadKind::Request, "GET / HTTP/1.1\r\nX: a\rb-long-enough-for-a-block\n\r\n",
                      "BARE_CR");
  expect_at_every_cut(HeadKind::Response, "HTTP/1.1 200 OK\r\nX: a\r\nY: b\n\r\n", "BARE_LF");
}

}  // namespace
}  // namespace stampede::http
