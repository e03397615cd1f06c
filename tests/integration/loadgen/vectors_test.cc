// The response vectors (tests/vectors/http/responses.json) from a server to the generator, each
// sent whole and split (one byte per send): every request of a run is counted once, as the
// vector's status or its error (EPROTO for bad bytes, ECONNRESET for a response cut short by the
// close), the server saw exactly the requests the run counted, and nothing waits for a timeout.
// One scripted server for every vector; the request's path names the vector and the mode.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "loadgen/runner.h"
#include "support/in_process.h"
#include "support/response_vectors.h"
#include "support/scripted_server.h"

namespace stampede::loadgen {
namespace {

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

TEST_F(GeneratorVectors, EachWholeAndSplit) {
  ASSERT_GE(vectors_->size(), 110u);
  for (std::size_t i = 0; i < vectors_->size(); ++i) {
    check(i, SendMode::Whole);
    check(i, SendMode::Split);
  }
}

}  // namespace
}  // namespace stampede::loadgen
