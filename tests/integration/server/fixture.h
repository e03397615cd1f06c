// Shared helpers of the server's integration tests: an in-process server on a free port
// (support/test_server.h, or each test's in a fixture: support/with_server.h), its totals checked
// in one assertion (support/server_totals.h), bounded waits (support/wait.h), the raw client and a
// check of one of its replies.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string_view>

#include "raw_client.h"
#include "support/server_totals.h"
#include "support/test_server.h"
#include "support/wait.h"
#include "support/with_server.h"

namespace stampede::server::testing {

using stampede::testing::elapsed_ms;
using stampede::testing::eventually;
using stampede::testing::start_server;
using stampede::testing::start_server_with;
using stampede::testing::totals_are;
using stampede::testing::WithServer;

// `reply` came, with `status` and `body`; for ASSERT_TRUE or EXPECT_TRUE, which says what differs.
inline ::testing::AssertionResult is_answer(const std::optional<Reply>& reply, int status,
                                            std::string_view body) {
  if (!reply) return ::testing::AssertionFailure() << "no answer";
  if (reply->status != status || reply->body != body) {
    return ::testing::AssertionFailure() << "answered " << reply->status << " [" << reply->body
                                         << "], expected " << status << " [" << body << "]";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace stampede::server::testing
