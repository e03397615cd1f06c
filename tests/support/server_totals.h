// Counters of the test server checked in one assertion, naming each that differs:
// EXPECT_TRUE(totals_are(server->stop(), {.requests = 22, .connections = 1})) compares the
// counters of a ServerTotals (server/server.h) that the test names and looks at no other;
// counters_are() does the same for any list of named counters (a worker's, in a unit test).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <optional>

#include "server/server.h"

namespace stampede::testing {

// A counter, its value and what the test expects of it (nullopt: not looked at).
struct Counter {
  const char* name;
  std::uint64_t value;
  std::optional<std::uint64_t> expected;
};

inline ::testing::AssertionResult counters_are(std::initializer_list<Counter> counters) {
  ::testing::AssertionResult result = ::testing::AssertionSuccess();
  for (const Counter& c : counters) {
    if (!c.expected || *c.expected == c.value) continue;
    if (result) result = ::testing::AssertionFailure();
    result << c.name << " is " << c.value << ", expected " << *c.expected << "; ";
  }
  return result;
}

// What a test expects of a ServerTotals' counters (each initialised, so that a designated
// initializer may leave any out).
struct ExpectedTotals {
  std::optional<std::uint64_t> requests{};
  std::optional<std::uint64_t> errors{};
  std::optional<std::uint64_t> bad_requests{};
  std::optional<std::uint64_t> connections{};
};

inline ::testing::AssertionResult totals_are(const server::ServerTotals& got,
                                             const ExpectedTotals& want) {
  return counters_are({{"requests", got.requests, want.requests},
                       {"errors", got.errors, want.errors},
                       {"bad_requests", got.bad_requests, want.bad_requests},
                       {"connections", got.connections, want.connections}});
}

}  // namespace stampede::testing
