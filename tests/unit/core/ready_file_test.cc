// The ready file: the port and a newline, put in place whole; an unwritable place is an error
// that names the file and the reason.
#include "core/ready_file.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/process.h"
#include "support/temp_dir.h"

namespace stampede {
namespace {

TEST(ReadyFile, WritesThePortAndLeavesNoTemporaryFile) {
  const testing::TempDir temp_dir;
  const std::string& dir = temp_dir.path();
  ASSERT_TRUE(write_ready_file(dir + "/port", 40123));
  EXPECT_EQ(testing::read_file(dir + "/port"), "40123\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/port.tmp"));
  ASSERT_TRUE(write_ready_file(dir + "/port", 7));  // replaces a previous one whole
  EXPECT_EQ(testing::read_file(dir + "/port"), "7\n");
}

TEST(ReadyFile, AnUnwritablePlaceIsAnErrorNamingIt) {
  const testing::TempDir temp_dir;
  const std::string& dir = temp_dir.path();
  const std::string path = dir + "/no-such-dir/port";
  auto r = write_ready_file(path, 1);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("--ready-file: cannot write"), std::string::npos);
  EXPECT_NE(r.error().message.find("no-such-dir"), std::string::npos);
  EXPECT_NE(r.error().message.find("No such file or directory"), std::string::npos);
}

}  // namespace
}  // namespace stampede
