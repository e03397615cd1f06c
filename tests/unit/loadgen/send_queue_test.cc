// SendQueue: which held permits a paced worker releases at a wake-up, fed with times only.
#include "loadgen/send_queue.h"

#include <gtest/gtest.h>

#include <vector>

#include "loadgen/pacer.h"

namespace stampede::loadgen {
namespace {

// Pops everything due at now_ns, in order.
std::vector<int> release(SendQueue<int>& q, std::int64_t now_ns) {
  std::vector<int> out;
  while (int* item = q.pop_due(now_ns))
    out.push_back(*item);
  return out;
}

TEST(SendQueue, ReleasesWhatIsDueAndNothingEarly) {
  int a = 1, b = 2, c = 3;
  SendQueue<int> q(3);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.pop_due(1'000'000), nullptr);
  q.push(100, &a);
  q.push(150, &b);
  q.push(150, &c);
  EXPECT_EQ(q.front_at(), 100);
  EXPECT_TRUE(release(q, 99).empty());  // one nanosecond early: nothing goes
  EXPECT_EQ(release(q, 100), std::vector<int>{1});
  EXPECT_EQ(q.front_at(), 150);
  EXPECT_EQ(release(q, 200), (std::vector<int>{2, 3}));
  EXPECT_TRUE(q.empty());
}

TEST(SendQueue, AResponseWakeUpSendsBeforeTheGridPoint) {
  // A permit due 10 us after a grid point: the worker timer is armed for the next grid point,
  // but a wake-up for a response 30 us after the due time sends it then, 60 us before it.
  int a = 1;
  SendQueue<int> q(1);
  const std::int64_t due = 5 * kWakeGridNs + 10'000;
  q.push(due, &a);
  EXPECT_EQ(wake_time(q.front_at()), 6 * kWakeGridNs);
  EXPECT_TRUE(release(q, due - 1).empty());
  EXPECT_EQ(release(q, due + 30'000), std::vector<int>{1});
}

TEST(SendQueue, WrapsAroundWithoutGrowingInSteadyState) {
  // Each of 4 connections holds one permit at a time, for many rounds: the ring is reused.
  std::vector<int> items{0, 1, 2, 3};
  SendQueue<int> q(items.size());
  std::int64_t t = 0;
  std::vector<int> sent;
  for (int round = 0; round < 100; ++round) {
    for (int& item : items)
      q.push(t += 7, &item);
    ASSERT_EQ(q.size(), items.size());
    const auto out = release(q, t);
    sent.insert(sent.end(), out.begin(), out.end());
  }
  ASSERT_EQ(sent.size(), 400u);
  for (std::size_t i = 0; i < sent.size(); ++i)
    ASSERT_EQ(sent[i], static_cast<int>(i % 4)) << i;
}

TEST(SendQueue, InterleavedPushAndPopKeepDueOrder) {
  int a = 1, b = 2, c = 3, d = 4;
  SendQueue<int> q(2);
  q.push(10, &a);
  q.push(20, &b);
  EXPECT_EQ(release(q, 10), std::vector<int>{1});
  q.push(30, &c);  // wraps in a ring of 2
  q.push(40, &d);  // more than the capacity: grows
  EXPECT_EQ(q.size(), 3u);
  EXPECT_EQ(release(q, 35), (std::vector<int>{2, 3}));
  EXPECT_EQ(release(q, 40), std::vector<int>{4});
}

TEST(SendQueue, AnOutOfOrderTimeTakesItsPlace) {
  int a = 1, b = 2, c = 3;
  SendQueue<int> q(3);
  q.push(300, &a);
  q.push(100, &b);
  q.push(200, &c);
  EXPECT_EQ(q.front_at(), 100);
  EXPECT_EQ(release(q, 250), (std::vector<int>{2, 3}));
  EXPECT_EQ(release(q, 300), std::vector<int>{1});
}

TEST(SendQueue, ClearDropsEverything) {
  int a = 1;
  SendQueue<int> q(1);
  q.push(1, &a);
  q.clear();
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.pop_due(100), nullptr);
}

}  // namespace
}  // namespace stampede::loadgen
