#include "loadgen/budget.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <vector>

namespace stampede::loadgen {
namespace {

TEST(Budget, ClaimsAreConsecutiveAndAddUpToTheTotal) {
  for (std::uint64_t total : {1ull, 7ull, 64ull, 1000ull, 100003ull}) {
    SharedBudget shared(total, 3);
    std::uint64_t next = 1;
    for (TicketRange batch; (batch = shared.claim()).count > 0;) {
      EXPECT_LE(batch.count, 64u);
      ASSERT_EQ(batch.first, next);
      next += batch.count;
    }
    EXPECT_EQ(next, total + 1);
    EXPECT_EQ(shared.claim().count, 0u);
    EXPECT_EQ(shared.remaining(), 0u);
  }
}

TEST(Budget, BatchesShrinkNearTheEnd) {
  SharedBudget shared(10, 2);
  EXPECT_EQ(shared.claim().count, 1u);  // 10 / 16 rounds up to the minimum batch
  SharedBudget large(100000, 2);
  EXPECT_EQ(large.claim().count, 64u);
}

TEST(Budget, UnlimitedNeverRunsOutAndStillNumbersFromOne) {
  SharedBudget shared(0, 1);
  LocalBudget local(shared);
  for (std::uint64_t i = 1; i <= 100000; ++i)
    ASSERT_EQ(local.take(), i);
}

TEST(Budget, ReserveTakesWhatIsLeft) {
  SharedBudget shared(7, 2);
  const TicketRange a = shared.reserve(5);
  EXPECT_EQ(a.first, 1u);
  EXPECT_EQ(a.count, 5u);
  const TicketRange b = shared.reserve(5);
  EXPECT_EQ(b.first, 6u);
  EXPECT_EQ(b.count, 2u);  // only 2 were left
  EXPECT_EQ(shared.reserve(5).count, 0u);
  EXPECT_EQ(shared.claim().count, 0u);
  LocalBudget local(shared, b);
  EXPECT_EQ(local.take(), 6u);
  EXPECT_EQ(local.take(), 7u);
  EXPECT_EQ(local.take(), 0u);
}

// The race behind a flaky "connections opened": -n 500 -c 10 on two workers, and the first
// worker sends everything it can before the second has started. Each worker's reservation
// (one ticket per connection, made before either runs) is still there for the late one.
TEST(Budget, AWorkerThatStartsLateKeepsOneTicketPerConnection) {
  SharedBudget shared(500, 2);
  LocalBudget early(shared, shared.reserve(5));
  LocalBudget late(shared, shared.reserve(5));
  std::uint64_t sent_early = 0;
  while (early.take() != 0)
    ++sent_early;
  EXPECT_EQ(sent_early, 495u);
  std::vector<std::uint64_t> late_tickets;
  for (std::uint64_t t; (t = late.take()) != 0;)
    late_tickets.push_back(t);
  EXPECT_EQ(late_tickets, (std::vector<std::uint64_t>{6, 7, 8, 9, 10}));
  EXPECT_EQ(shared.remaining(), 0u);
}

// Exactness under contention: workers on their own threads take tickets until they run out;
// every ticket, 1..total, is taken exactly once, whatever the interleaving.
TEST(Budget, EveryTicketOnceAcrossThreads) {
  constexpr std::uint64_t kTotal = 200003;
  constexpr int kThreads = 4;
  SharedBudget shared(kTotal, kThreads);
  std::vector<std::vector<std::uint64_t>> taken(kThreads);
  std::vector<LocalBudget> locals;
  for (int t = 0; t < kThreads; ++t)
    locals.emplace_back(shared, shared.reserve(3));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (std::uint64_t ticket; (ticket = locals[t].take()) != 0;)
        taken[t].push_back(ticket);
    });
  }
  for (auto& t : threads)
    t.join();
  std::vector<std::uint64_t> all;
  for (const auto& mine : taken)
    all.insert(all.end(), mine.begin(), mine.end());
  std::sort(all.begin(), all.end());
  ASSERT_EQ(all.size(), kTotal);
  for (std::uint64_t i = 0; i < kTotal; ++i)
    ASSERT_EQ(all[i], i + 1);
  EXPECT_EQ(shared.remaining(), 0u);
}

}  // namespace
}  // namespace stampede::loadgen
