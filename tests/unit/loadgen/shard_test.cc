// --shard K/N arithmetic and the interleaved --rps schedule: pure, no sockets, no clock.
#include "loadgen/shard.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "loadgen/pacer.h"

namespace stampede::loadgen {
namespace {

TEST(Shard, NumbersOfAllShardsAreOneToTotalEachOnce) {
  for (std::uint32_t n : {1u, 3u, 4u, 7u}) {
    for (std::uint64_t total : {7ull, 8ull, 1001ull}) {
      std::vector<std::uint64_t> numbers;
      std::uint64_t shares = 0;
      for (std::uint32_t k = 1; k <= n; ++k) {
        const Shard s{k, n};
        shares += s.share_of(total);
        for (std::uint64_t t = 1; t <= s.share_of(total); ++t) {
          const std::uint64_t g = s.global_number(t);
          EXPECT_EQ((g - 1) % n, k - 1);
          numbers.push_back(g);
        }
      }
      EXPECT_EQ(shares, total) << n << " " << total;
      std::sort(numbers.begin(), numbers.end());
      ASSERT_EQ(numbers.size(), total);
      for (std::uint64_t i = 0; i < total; ++i)
        EXPECT_EQ(numbers[i], i + 1);
    }
  }
}

TEST(Shard, ConnectionsSplitAsEvenlyAsTheyDivide) {
  const std::uint32_t n = 4;
  std::uint32_t sum = 0;
  for (std::uint32_t k = 1; k <= n; ++k) {
    const std::uint32_t c = Shard{k, n}.connections_of(10);
    EXPECT_TRUE(c == 2 || c == 3) << k;
    sum += c;
  }
  EXPECT_EQ(sum, 10u);
}

// The shards' paced sends (several workers each) are exactly the single run's schedule: each
// slot once, at the single run's time, not N bursts.
TEST(Shard, PacedSendsOfAllShardsAreTheSingleSchedule) {
  constexpr std::int64_t kStart = 1'000'000'000;
  for (std::int64_t ramp : {std::int64_t{0}, std::int64_t{300'000'000}}) {
    const RateSchedule schedule(1000, ramp);
    constexpr std::uint32_t kShards = 3, kWorkers = 2, kPerWorker = 50;
    std::vector<std::int64_t> sends;
    for (std::uint32_t k = 1; k <= kShards; ++k) {
      for (std::uint32_t w = 0; w < kWorkers; ++w) {
        OpenLoopPacer pacer(schedule, w, kWorkers, Shard{k, kShards});
        pacer.begin(kStart);
        for (std::uint32_t i = 0; i < kPerWorker; ++i)
          sends.push_back(pacer.next_send_time(0));
      }
    }
    std::sort(sends.begin(), sends.end());
    for (std::size_t slot = 0; slot < sends.size(); ++slot)
      ASSERT_EQ(sends[slot], kStart + schedule.offset_of(slot)) << slot << " ramp " << ramp;
  }
}

TEST(Shard, ParsesKOfN) {
  auto s = parse_shard("3/4");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->index, 3u);
  EXPECT_EQ(s->count, 4u);
  for (const char* bad : {"5/4", "0/4", "1/0", "1", "a/b", "-1/4", "1/4x", "/4", "1/"})
    EXPECT_FALSE(parse_shard(bad).ok()) << bad;
  EXPECT_FALSE(check_shard(Shard{1, 4}, 2, 0).ok());
  EXPECT_FALSE(check_shard(Shard{1, 4}, 4, 3).ok());
  EXPECT_TRUE(check_shard(Shard{1, 4}, 4, 4).ok());
}

TEST(Shard, StartTimes) {
  EXPECT_EQ(*parse_start_time("1796335200"), 1796335200LL * 1'000'000'000);
  EXPECT_EQ(*parse_start_time("1796335200.25"), 1796335200LL * 1'000'000'000 + 250'000'000);
  EXPECT_EQ(*parse_start_time("1970-01-01T00:00:01Z"), 1'000'000'000);
  EXPECT_EQ(*parse_start_time("1970-01-01T01:00:01.5+01:00"), 1'500'000'000);
  EXPECT_EQ(*parse_start_time("2026-12-03T22:00:00Z"), 1796335200LL * 1'000'000'000);
  EXPECT_EQ(format_start_time(1796335200LL * 1'000'000'000 + 250'000'000),
            "2026-12-03T22:00:00.250Z");
  for (const char* bad : {"", "soon", "2026-13-03T22:00:00Z", "2026-12-03T22:00:00", "12x"})
    EXPECT_FALSE(parse_start_time(bad).ok()) << bad;
}

}  // namespace
}  // namespace stampede::loadgen
