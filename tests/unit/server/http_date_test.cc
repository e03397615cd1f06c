#include "server/http_date.h"

#include <gtest/gtest.h>

namespace stampede::server {
namespace {

TEST(HttpDate, FormatsImfFixdate) {
  EXPECT_EQ(view(format_http_date(0)), "Thu, 01 Jan 1970 00:00:00 GMT");
  EXPECT_EQ(view(format_http_date(784111777)), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(view(format_http_date(951782400)), "Tue, 29 Feb 2000 00:00:00 GMT");
  EXPECT_EQ(view(format_http_date(4102444799)), "Thu, 31 Dec 2099 23:59:59 GMT");
}

TEST(HttpDate, NextSecondIsWithinOneSecond) {
  const std::int64_t ns = ns_to_next_wall_second();
  EXPECT_GT(ns, 0);
  EXPECT_LE(ns, 1'000'000'000);
}

}  // namespace
}  // namespace stampede::server
