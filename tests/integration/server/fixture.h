// Shared helpers of the server's integration tests: an in-process server on a free port
// (support/test_server.h), bounded waits (support/wait.h) and the raw client.
#pragma once

#include "raw_client.h"
#include "support/test_server.h"
#include "support/wait.h"

namespace stampede::server::testing {

using stampede::testing::elapsed_ms;
using stampede::testing::eventually;
using stampede::testing::start_server;
using stampede::testing::start_server_with;

}  // namespace stampede::server::testing
