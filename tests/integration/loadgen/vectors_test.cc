// The response vectors (tests/vectors/http/responses.json) to the generator, each sent whole and
// split (one byte per read; vectors over 4 KiB in 4096 pieces): every request of a run is counted
// once, as the vector's status or its error (EPROTO for bad bytes, ECONNRESET for a response cut
// short by the close), the server saw exactly the requests the run counted, and nothing waits for
// a timeout. Whole: from a scripted server over loopback, one server for every vector (the
// request's path names the vector and the mode). Split: the generator's connections over
// in-memory streams (support/in_memory_generator.h), where a byte per read costs no context
// switch (a server sending one byte per send() cost about 4 CPU s and up to 50 s of a loaded
// host's wall time for the 172 vectors); over loopback too for the first small vector of each
// verdict, so a real socket still delivers split responses.
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "loadgen/route.h"
#include "loadgen/runner.h"
#include "loadgen/worker_stats.h"
#include "support/in_memory_generator.h"
#include "support/in_process.h"
#include "support/response_vectors.h"
#include "support/scripted_server.h"

namespace stampede::loadgen {
namespace {

using testing::InMemoryGeneratorRun;
using testing::InMemoryRunParams;
using testing::ResponseVector;
using testing::ScriptedReply;
using testing::ScriptedServer;
using testing::SendMode;
using Clock = std::chrono::steady_clock;

// Requests per vector and mode, one per connection (-c 3 -n 3): a connection that failed backs
// off before its next request, which would cost 35 ms a vector.
constexpr std::uint64_t kRequests = 3;
// The per-request timeout no vector may wait for: a bad or cut response ends its request at once.
constexpr std::chrono::seconds kVectorTimeout{4};
// The split run over loopback is kept for vectors up to this size (one context switch a byte).
constexpr std::size_t kSocketSplitBytes = 512;

class GeneratorVectors : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    vectors_ = new std::vector<ResponseVector>(testing::load_response_vectors());
    server_ = new ScriptedServer([](std::uint64_t, const std::string& request) {
      return testing::vector_reply(*vectors_, request);
    });
  }
  static void TearDownTestSuite() {
    delete server_;
    delete vectors_;
  }

  void check(std::size_t index, SendMode mode);
  void check_in_memory(std::size_t index);

  static std::vector<ResponseVector>* vectors_;
  static ScriptedServer* server_;
};

std::vector<ResponseVector>* GeneratorVectors::vectors_ = nullptr;
ScriptedServer* GeneratorVectors::server_ = nullptr;

void GeneratorVectors::check(std::size_t index, SendMode mode) {
  const ResponseVector& v = (*vectors_)[index];
  SCOPED_TRACE(v.name + (mode == SendMode::Whole ? " (whole)" : " (split)"));
  const std::uint64_t requests = server_->requests();
  Config c;
  c.url = server_->url(testing::vector_path(index, mode));
  c.method = v.head ? "HEAD" : "GET";
  c.cores = 1;
  c.concurrency = kRequests;
  c.max_requests = kRequests;
  c.timeout = kVectorTimeout;
  const Clock::time_point start = Clock::now();
  const RunResult r = testing::must_run(c);
  EXPECT_LT(Clock::now() - start, kVectorTimeout / 2) << "a request waited for its timeout";
  EXPECT_EQ(r.total_requests, kRequests);
  EXPECT_EQ(server_->requests() - requests, kRequests) << "the server's count differs";
  EXPECT_TRUE(r.local_errors.empty());
  const bool status = !v.generator.empty() && v.generator[0] >= '1' && v.generator[0] <= '5';
  if (status) {
    EXPECT_EQ(r.status_counts, (std::map<int, std::uint64_t>{{std::stoi(v.generator), kRequests}}));
    for (const auto& [code, n] : r.error_codes)
      EXPECT_NE(code[0], 'E') << code << " " << n;
  } else {
    EXPECT_TRUE(r.status_counts.empty());
    EXPECT_EQ(r.error_codes, (std::map<std::string, std::uint64_t>{{v.generator, kRequests}}));
  }
}

// Vector `index` split, over in-memory streams: the same counts as check() asks of a run.
void GeneratorVectors::check_in_memory(std::size_t index) {
  const ResponseVector& v = (*vectors_)[index];
  SCOPED_TRACE(v.name + " (split, in memory)");
  InMemoryRunParams p;
  p.reply = v.bytes;
  p.eof = v.eof;
  p.head = v.head;
  p.clients = kRequests;
  p.requests = kRequests;
  p.timeout_ns = std::chrono::nanoseconds(kVectorTimeout).count();
  p.read_size = testing::piece_for(v, SendMode::Split);
  InMemoryGeneratorRun run(p);
  ASSERT_TRUE(run.run()) << "the connections did not finish";
  EXPECT_FALSE(run.held_a_permit());
  const WorkerStats& s = run.stats();
  EXPECT_EQ(s.requests(), kRequests);
  EXPECT_EQ(s.failure_count(ETIMEDOUT), 0u) << "a request waited for its timeout";
  // What the server saw: one whole request on each connection.
  ASSERT_EQ(run.streams().streams.size(), kRequests);
  for (const auto& stream : run.streams().streams) {
    const std::string& sent = stream->written();
    EXPECT_EQ(sent.rfind(v.head ? "HEAD / " : "GET / ", 0), 0u) << sent;
    EXPECT_EQ(sent.find("\r\n\r\n"), sent.size() - 4) << sent;
  }
  EXPECT_TRUE(s.custom_errors().empty());
  EXPECT_TRUE(s.relabelled().empty());
  std::map<int, std::uint64_t> statuses;
  for (int status = 0; status < WorkerStats::kMaxStatus; ++status) {
    if (s.status_count(status) != 0) statuses[status] = s.status_count(status);
  }
  std::map<std::string, std::uint64_t> failures;
  for (int err = 0; err < WorkerStats::kMaxErrno; ++err) {
    if (s.failure_count(err) != 0) failures[failure_name(err)] += s.failure_count(err);
  }
  const bool status = !v.generator.empty() && v.generator[0] >= '1' && v.generator[0] <= '5';
  if (status) {
    EXPECT_EQ(statuses, (std::map<int, std::uint64_t>{{std::stoi(v.generator), kRequests}}));
    EXPECT_EQ(failures, (std::map<std::string, std::uint64_t>{}));
  } else {
    EXPECT_EQ(statuses, (std::map<int, std::uint64_t>{}));
    EXPECT_EQ(failures, (std::map<std::string, std::uint64_t>{{v.generator, kRequests}}));
  }
}

TEST_F(GeneratorVectors, EachWholeAndSplit) {
  ASSERT_GE(vectors_->size(), 110u);
  std::set<std::string> split_over_socket;  // the verdicts whose split socket run was made
  for (std::size_t i = 0; i < vectors_->size(); ++i) {
    const ResponseVector& v = (*vectors_)[i];
    check(i, SendMode::Whole);
    check_in_memory(i);
    if (v.bytes.size() <= kSocketSplitBytes && split_over_socket.insert(v.generator).second) {
      check(i, SendMode::Split);
    }
  }
  EXPECT_GE(split_over_socket.size(), 3u);
}

}  // namespace
}  // namespace stampede::loadgen
