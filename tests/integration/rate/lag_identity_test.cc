// Under --rps, for every request: corrected latency - uncorrected latency == send lag, exactly
// (integer ns), with and without keep-alive (a request that opens its connection begins at its
// connect, and its lag ends there too). The per-request values are those the run recorded: the
// RequestHook's RequestOutcome carries them, and their sums match the report's histograms.
// Each run: 300 requests at 1500 rps, about 0.2 s.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "loadgen/hooks.h"
#include "loadgen/runner.h"
#include "support/in_process.h"

namespace stampede::loadgen {
namespace {

using namespace std::chrono_literals;
using testing::must_run;
using testing::start_server;

struct Record {
  int status = 0;
  std::int64_t latency_ns = 0;
  std::int64_t uncorrected_ns = 0;
  std::int64_t send_lag_ns = 0;
};

// Keeps every outcome of one worker; the records are read after run() returns (the workers
// joined).
class RecordingHook final : public RequestHook {
 public:
  explicit RecordingHook(std::vector<Record>& records) : records_(records) {}
  Generated generate(std::uint64_t, std::string&) override { return {}; }
  std::string_view on_outcome(const RequestOutcome& o) override {
    records_.push_back({o.status, o.latency_ns, o.uncorrected_ns, o.send_lag_ns});
    return {};
  }

 private:
  std::vector<Record>& records_;
};

struct Recorded {
  RunResult result;
  std::vector<Record> records;  // every worker's, in no particular order
};

Recorded run_paced(int port, bool keep_alive) {
  constexpr std::uint32_t kWorkers = 2;
  auto per_worker = std::make_shared<std::vector<std::vector<Record>>>(kWorkers);
  for (auto& records : *per_worker)
    records.reserve(1000);
  auto hooks = std::make_shared<HookSet>();
  hooks->make = [per_worker](std::uint32_t worker) -> Expected<std::unique_ptr<RequestHook>> {
    return std::unique_ptr<RequestHook>(std::make_unique<RecordingHook>((*per_worker)[worker]));
  };
  Config c;
  c.url = "http://127.0.0.1:" + std::to_string(port) + "/";
  c.cores = kWorkers;
  c.concurrency = 4;
  c.keep_alive = keep_alive;
  c.timeout = 10s;  // a bug must fail the test, not hang it
  c.rps = 1500;
  c.max_requests = 300;
  c.hooks = hooks;
  Recorded out{must_run(c), {}};
  for (const auto& records : *per_worker)
    out.records.insert(out.records.end(), records.begin(), records.end());
  return out;
}

// Sums of the per-request values against the report's histograms (whose mean is exact over the
// values recorded): the records are the values the report was made of.
void expect_sum(const std::vector<Record>& records, std::int64_t Record::*field,
                const stats::Histogram& h, const char* what) {
  long double sum = 0;
  for (const Record& r : records)
    sum += static_cast<long double>(r.*field);
  ASSERT_EQ(h.count(), records.size()) << what;
  const long double reported = static_cast<long double>(h.mean()) * h.count();
  EXPECT_NEAR(static_cast<double>(sum), static_cast<double>(reported), 1e-6 * reported + 1) << what;
}

void expect_identity(const Recorded& run, bool keep_alive) {
  const RunResult& r = run.result;
  ASSERT_TRUE(r.rate.has_value());
  EXPECT_EQ(r.total_requests, 300u);
  EXPECT_EQ(r.total_errors, 0u);
  ASSERT_EQ(run.records.size(), 300u);
  if (!keep_alive) {
    EXPECT_EQ(r.connections_opened, 300u);  // every request opened its connection
  }
  for (const Record& rec : run.records) {
    EXPECT_EQ(rec.status, 200);
    EXPECT_GE(rec.send_lag_ns, 0);
    EXPECT_GT(rec.uncorrected_ns, 0);
    ASSERT_EQ(rec.latency_ns - rec.uncorrected_ns, rec.send_lag_ns)
        << "corrected " << rec.latency_ns << " ns, uncorrected " << rec.uncorrected_ns
        << " ns, lag " << rec.send_lag_ns << " ns (keep-alive " << keep_alive << ")";
  }
  expect_sum(run.records, &Record::latency_ns, r.latency, "corrected latency");
  expect_sum(run.records, &Record::uncorrected_ns, r.rate->uncorrected, "uncorrected latency");
  expect_sum(run.records, &Record::send_lag_ns, r.rate->lag, "send lag");
}

TEST(LagIdentity, CorrectedMinusUncorrectedIsTheSendLagForEveryRequest) {
  auto s = start_server();
  ASSERT_TRUE(s);
  for (bool keep_alive : {false, true}) {
    SCOPED_TRACE(keep_alive ? "keep-alive" : "a connection per request");
    expect_identity(run_paced(s->port(), keep_alive), keep_alive);
  }
}

}  // namespace
}  // namespace stampede::loadgen
