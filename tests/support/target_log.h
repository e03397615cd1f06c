// TargetLog: the request lines a ScriptedServer saw ("GET /item/7"), recorded on its thread, and
// the check the sharded runs (shards, MPI ranks, network namespaces) share: every id 1..N of an
// --index or request(id) run arrived exactly once, whichever shard sent it.
//
// recorder() is the server's script; each_once() may be called from any thread, typically after
// the run. The log outlives the server it records for.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <mutex>
#include <set>
#include <string>

#include "support/scripted_server.h"

namespace stampede::testing {

class TargetLog {
 public:
  // A script that records each request's "METHOD target" and answers ok_reply().
  ScriptedServer::Script recorder();
  // Success when exactly `n` requests arrived and "GET <prefix>1" .. "GET <prefix>n" each once;
  // else names the count and the first ids missing or repeated.
  ::testing::AssertionResult each_once(const std::string& prefix, int n) const;

 private:
  mutable std::mutex mutex_;
  std::multiset<std::string> targets_;  // guarded by mutex_
};

}  // namespace stampede::testing
