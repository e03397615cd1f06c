#include "server/error_spread.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace stampede::server {
namespace {

std::uint64_t count_errors(double percent, int n) {
  ErrorSpread spread(percent);
  std::uint64_t errors = 0;
  for (int i = 0; i < n; ++i)
    errors += spread.next() ? 1 : 0;
  return errors;
}

TEST(ErrorSpread, ExactShareOverTheRun) {
  EXPECT_EQ(count_errors(10, 1000), 100u);
  EXPECT_EQ(count_errors(0, 1000), 0u);
  EXPECT_EQ(count_errors(100, 1000), 1000u);
  EXPECT_EQ(count_errors(1, 1000), 10u);
  EXPECT_EQ(count_errors(50, 12345), 6172u);  // floor(6172.5)
  EXPECT_EQ(count_errors(33.3, 10000), 3330u);
  EXPECT_EQ(count_errors(0.5, 1000), 5u);
  EXPECT_EQ(count_errors(99.9, 1000), 999u);
}

TEST(ErrorSpread, ExactAtEveryPrefix) {
  ErrorSpread spread(7.5);
  std::uint64_t errors = 0;
  for (std::uint64_t n = 1; n <= 5000; ++n) {
    errors += spread.next() ? 1 : 0;
    ASSERT_EQ(errors, n * 75 / 1000) << "after " << n << " requests";
  }
}

TEST(ErrorSpread, ErrorsAreEvenlySpacedNotClustered) {
  ErrorSpread spread(10);
  std::vector<int> positions;
  for (int i = 0; i < 1000; ++i) {
    if (spread.next()) positions.push_back(i);
  }
  ASSERT_EQ(positions.size(), 100u);
  for (std::size_t i = 1; i < positions.size(); ++i) {
    EXPECT_EQ(positions[i] - positions[i - 1], 10);
  }
}

TEST(ErrorSpread, SeveralWorkersStayWithinOneRequestEach) {
  // Four workers with uneven shares of 1000 requests at 10%: within 4 of 100 in total.
  const int shares[] = {251, 249, 333, 167};
  std::uint64_t total = 0;
  for (int share : shares)
    total += count_errors(10, share);
  EXPECT_GE(total, 96u);
  EXPECT_LE(total, 100u);
}

}  // namespace
}  // namespace stampede::server
