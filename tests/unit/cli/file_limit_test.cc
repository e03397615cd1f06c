// The generator's open-file check (cli/file_limit.h): counted for this process's part of -c.
#include "cli/file_limit.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace stampede::loadgen {
namespace {

using ::testing::HasSubstr;

Config file_limit_config(std::uint32_t connections, Shard shard) {
  Config config;
  config.concurrency = connections;
  config.cores = 1;
  config.shard = shard;
  return config;
}

constexpr FileLimit kLimit1100{1100, 1100, false};

// -c 4000 --shard 1/4 opens 1000 connections: it fits under 1100 open files, the whole -c 4000
// does not.
TEST(FileLimit, AShardNeedsOnlyItsPartOfTheConnections) {
  const Config shard = file_limit_config(4000, Shard{1, 4});
  EXPECT_EQ(descriptors_needed(shard, 10), 10u + 1000u + 2u + 32u);
  EXPECT_TRUE(check_file_limit(shard, 10, kLimit1100));
  const auto whole = check_file_limit(file_limit_config(4000, Shard{}), 10, kLimit1100);
  ASSERT_FALSE(whole);
  EXPECT_THAT(whole.error().message,
              HasSubstr("-c 4000 needs about 4044 open files, more than this process may open "
                        "(1100; hard limit 1100)"));
}

// A shard over the limit is refused naming its part; the shards' parts differ by one at most.
TEST(FileLimit, AShardOverTheLimitIsRefusedNamingItsPart) {
  const auto refused = check_file_limit(file_limit_config(4403, Shard{1, 4}), 10, kLimit1100);
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().message,
              HasSubstr("-c 4403 (1101 of them in shard 1/4) needs about 1145 open files"));
  EXPECT_TRUE(check_file_limit(file_limit_config(4403, Shard{4, 4}), 10, FileLimit{1144, 2000}));
  EXPECT_FALSE(check_file_limit(file_limit_config(4403, Shard{4, 4}), 10, FileLimit{1143, 2000}));
}

TEST(FileLimit, NoLimitFitsAnything) {
  EXPECT_TRUE(check_file_limit(file_limit_config(4'000'000, Shard{}), 10, FileLimit{0, 0, true}));
}

}  // namespace
}  // namespace stampede::loadgen
