// Outside input read at start-up: files named by the user (read_input_file), JSON documents
// (parse_json_input), and the error line that quotes them (printable, exit_on_exception).
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "core/error_line.h"
#include "core/input_file.h"
#include "core/json_input.h"
#include "support/temp_dir.h"

namespace stampede {
namespace {

std::string nested(int levels) {
  return std::string(static_cast<std::size_t>(levels), '[') +
         std::string(static_cast<std::size_t>(levels), ']');
}

TEST(InputFile, ReadsARegularFileWithinItsLimit) {
  const testing::TempDir dir;
  std::ofstream(dir.file("body")) << "hello";
  auto text = read_input_file(dir.file("body"), 5, "body file");
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_EQ(*text, "hello");
}

TEST(InputFile, RefusesWhatIsNotAFileOfBoundedSize) {
  const testing::TempDir dir;
  std::ofstream(dir.file("big")) << "123456";
  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0600), 0);
  const std::string missing = dir.file("missing");
  const struct {
    std::string path;
    std::size_t limit;
    std::string reason;
  } cases[] = {
      {dir.file("big"), 5, "larger than 5 bytes"},    {dir.file(""), kMiB, "is a directory"},
      {dir.file("fifo"), kMiB, "not a regular file"},  // no writer: must not wait for one
      {"/dev/zero", kMiB, "not a regular file"},       // endless
      {missing, kMiB, "No such file or directory"},
  };
  for (const auto& c : cases) {
    auto text = read_input_file(c.path, c.limit, "body file");
    ASSERT_FALSE(text.ok()) << c.path;
    EXPECT_EQ(text.error().message, "cannot read body file '" + c.path + "': " + c.reason);
  }
  EXPECT_EQ(read_input_file(dir.file("big"), 2 * kMiB - 1, "x").ok(), true);
  std::ofstream(dir.file("big"), std::ios::app) << std::string(kMiB, 'x');
  EXPECT_EQ(read_input_file(dir.file("big"), kMiB, "x").error().message,
            "cannot read x '" + dir.file("big") + "': larger than 1 MiB");
}

TEST(JsonInput, ParsesUpToTheDepthLimit) {
  auto doc = parse_json_input("{\"a\": " + nested(kMaxJsonDepth - 1) + "}");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  EXPECT_TRUE((*doc)["a"].is_array());
  EXPECT_EQ(parse_json_input("[1, {\"b\": null}]")->dump(), "[1,{\"b\":null}]");
}

TEST(JsonInput, RefusesDeeperDocumentsWithoutRecursing) {
  for (const std::string& text :
       {"{\"a\": " + nested(kMaxJsonDepth) + "}", nested(kMaxJsonDepth + 1), nested(100000),
        std::string(100000, '[')}) {
    auto doc = parse_json_input(text);
    ASSERT_FALSE(doc.ok()) << text.size();
    EXPECT_EQ(doc.error().message, "JSON nested deeper than 64 levels");
  }
  EXPECT_EQ(parse_json_input("{\"a\": ").error().message, "invalid JSON");
  EXPECT_EQ(parse_json_input("").error().message, "invalid JSON");
}

TEST(ErrorLine, EscapesControlBytesOfQuotedInput) {
  EXPECT_EQ(printable("-n: not a number: '1\r\n2'"), "-n: not a number: '1\\r\\n2'");
  EXPECT_EQ(printable(std::string("a\0b\tc\x1b[2J\x7f", 10)), "a\\x00b\\tc\\x1b[2J\\x7f");
  EXPECT_EQ(printable("caf\xc3\xa9 ok"), "caf\xc3\xa9 ok");  // UTF-8 is left alone
}

TEST(ErrorLine, AnExceptionBecomesOneLineAndTheGivenStatus) {
  ::testing::internal::CaptureStderr();
  const int status = exit_on_exception(2, []() -> int { throw std::runtime_error("bad\nthing"); });
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "stampede: bad\\nthing\n");
  EXPECT_EQ(status, 2);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(exit_on_exception(1, []() -> int { throw 42; }), 1);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "stampede: unexpected error\n");
  EXPECT_EQ(exit_on_exception(2, [] { return 3; }), 3);
}

}  // namespace
}  // namespace stampede
