#include "loadgen/budget.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace stampede::loadgen {
namespace {

TEST(Budget, ClaimsAddUpToTheTotal) {
  for (std::uint64_t total : {1ull, 7ull, 64ull, 1000ull, 100003ull}) {
    SharedBudget shared(total, 3);
    std::uint64_t claimed = 0;
    for (std::uint64_t batch; (batch = shared.claim()) > 0;) {
      EXPECT_LE(batch, 64u);
      claimed += batch;
    }
    EXPECT_EQ(claimed, total);
    EXPECT_EQ(shared.claim(), 0u);
  }
}

TEST(Budget, BatchesShrinkNearTheEnd) {
  SharedBudget shared(10, 2);
  EXPECT_EQ(shared.claim(), 1u);  // 10 / 16 rounds up to the minimum batch
  SharedBudget large(100000, 2);
  EXPECT_EQ(large.claim(), 64u);
}

TEST(Budget, UnlimitedNeverRunsOut) {
  SharedBudget shared(0, 1);
  LocalBudget local(shared);
  for (int i = 0; i < 100000; ++i)
    ASSERT_TRUE(local.take());
}

TEST(Budget, ReserveTakesWhatIsLeftAndNothingWhenUnlimited) {
  SharedBudget shared(7, 2);
  EXPECT_EQ(shared.reserve(5), 5u);
  EXPECT_EQ(shared.reserve(5), 2u);  // only 2 were left
  EXPECT_EQ(shared.reserve(5), 0u);
  EXPECT_EQ(shared.claim(), 0u);
  SharedBudget unlimited(0, 2);
  EXPECT_EQ(unlimited.reserve(5), 0u);
  EXPECT_TRUE(LocalBudget(unlimited, 0).take());
}

// The race behind a flaky "connections opened": -n 500 -c 10 on two workers, and the first
// worker sends everything it can before the second has started. Each worker's reservation
// (one ticket per connection, made before either runs) is still there for the late one.
TEST(Budget, AWorkerThatStartsLateKeepsOneTicketPerConnection) {
  SharedBudget shared(500, 2);
  LocalBudget early(shared, shared.reserve(5));
  LocalBudget late(shared, shared.reserve(5));
  std::uint64_t sent_early = 0;
  while (early.take())
    ++sent_early;
  EXPECT_EQ(sent_early, 495u);
  std::uint64_t sent_late = 0;
  while (late.take())
    ++sent_late;
  EXPECT_EQ(sent_late, 5u);
  EXPECT_EQ(shared.remaining(), 0u);
}

// Exactness under contention: workers on their own threads take tickets until they run out;
// every ticket is taken once, whatever the interleaving.
TEST(Budget, ExactlyTotalTicketsAcrossThreads) {
  constexpr std::uint64_t kTotal = 200003;
  constexpr int kThreads = 4;
  SharedBudget shared(kTotal, kThreads);
  std::vector<std::uint64_t> taken(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      LocalBudget local(shared, shared.reserve(3));
      while (local.take())
        ++taken[t];
    });
  }
  for (auto& t : threads)
    t.join();
  std::uint64_t sum = 0;
  for (auto n : taken)
    sum += n;
  EXPECT_EQ(sum, kTotal);
  EXPECT_EQ(shared.remaining(), 0u);
}

}  // namespace
}  // namespace stampede::loadgen
