// Shards in network namespaces of their own (docs/distributed.md, "Separate network stacks"):
// three generators, each in its namespace with its own address, started with `ip netns exec`,
// load a server in a fourth; their saved results merge into the exact run. Skipped, with the
// reason, where namespaces cannot be made (not root, no iproute2).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "loadgen/merge.h"
#include "loadgen/result_file.h"
#include "support/process.h"
#include "support/scripted_server.h"
#include "support/target_log.h"
#include "support/temp_dir.h"
#include "topology.h"

namespace stampede::testing {
namespace {

using namespace std::chrono_literals;

constexpr int kShards = 3;
constexpr int kRequests = 301;

// -n 301 over three shards in three namespaces: the server sees 1..301 each once, from the
// three shard addresses, and the merged result counts exactly what the server saw.
TEST(Netns, ShardsInTheirOwnNamespacesMergeIntoTheExactRun) {
  Topology net(kShards);
  if (!net.unusable_reason().empty()) GTEST_SKIP() << net.unusable_reason();
  ASSERT_EQ(net.error(), "");
  TargetLog targets;
  auto server = net.in_server_namespace([&] {
    return std::make_unique<ScriptedServer>(targets.recorder(), Topology::kServerAddress);
  });
  TempDir dir;
  std::vector<std::unique_ptr<ChildProcess>> shards;
  for (int k = 1; k <= kShards; ++k) {
    const std::string save = dir.path() + "/shard" + std::to_string(k);
    const std::string shard = std::to_string(k) + "/" + std::to_string(kShards);
    shards.push_back(std::make_unique<ChildProcess>(net.in_shard_namespace(
        k,
        {STAMPEDE_BINARY, "-n", std::to_string(kRequests), "-c", "3", "-k", "--cores", "1",
         "--index", "ID", "--shard", shard, "--save", save, "--quiet", server->url("/item/ID")})));
  }
  loadgen::ResultMerger merger(/*force=*/false);
  for (int k = 1; k <= kShards; ++k) {
    ChildProcess& shard = *shards[k - 1];
    ASSERT_EQ(shard.wait(30s), 0) << "shard " << k << ": " << shard.stderr_text();
    const std::string saved_text = read_file(dir.path() + "/shard" + std::to_string(k));
    auto saved = loadgen::parse_result_line(saved_text.substr(0, saved_text.find('\n')));
    ASSERT_TRUE(saved.ok()) << saved.error().message;
    EXPECT_EQ(saved->result.total_requests, k == 1 ? 101u : 100u) << k;
    ASSERT_TRUE(merger.add(std::move(saved).value(), "shard " + std::to_string(k)).ok());
  }
  auto merged = merger.finish();
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_EQ(merged->result.total_requests, static_cast<std::uint64_t>(kRequests));
  EXPECT_EQ(merged->result.total_errors, 0u);
  EXPECT_EQ(merged->shards.size(), static_cast<std::size_t>(kShards));
  EXPECT_EQ(server->requests(), static_cast<std::uint64_t>(kRequests));
  EXPECT_TRUE(targets.each_once("/item/", kRequests));
}

}  // namespace
}  // namespace stampede::testing
