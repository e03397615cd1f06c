// LiveFeed and the Prometheus text of a run against the in-process server: figures while the run
// goes, and afterwards exactly the RunResult the report prints.
#include "loadgen/live.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <thread>

#include "loadgen/report/prometheus.h"
#include "support/in_process.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace stampede::loadgen {
namespace {

using namespace std::chrono_literals;

Config live_config(const server::Server& s) {
  Config c;
  c.url = "http://127.0.0.1:" + std::to_string(s.port()) + "/";
  c.cores = 2;
  c.concurrency = 4;
  c.keep_alive = true;
  c.timeout = 5s;
  c.rps = 500;
  c.max_duration = 800ms;
  return c;
}

// The value of the unlabelled sample `name` in `text`; -1 when absent.
double sample_value(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name + " ", 0) == 0) return std::stod(line.substr(name.size() + 1));
  }
  return -1;
}

// histogram_quantile over the text's stampede_request_duration_seconds_bucket lines.
double quantile_from_text(const std::string& text, double q) {
  std::istringstream in(text);
  std::string line;
  std::vector<double> bounds;
  std::vector<std::uint64_t> cumulative;
  const std::string prefix = "stampede_request_duration_seconds_bucket{le=\"";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    const std::size_t close = line.find('"', prefix.size());
    const std::string le = line.substr(prefix.size(), close - prefix.size());
    if (le != "+Inf") bounds.push_back(std::stod(le));
    cumulative.push_back(std::stoull(line.substr(line.find("} ") + 2)));
  }
  return stats::prometheus_quantile(q, bounds, cumulative);
}

TEST(LiveMetrics, SnapshotsWhileRunningThenExactlyTheReport) {
  server::ServerOptions options;
  options.error_status = 503;
  options.error_percent = 20;
  auto s = testing::start_server(options);
  ASSERT_TRUE(s);
  LiveFeed feed;
  EXPECT_FALSE(feed.snapshot().has_value());  // before any run
  RunHooks hooks;
  hooks.live = &feed;
  std::optional<LiveFigures> mid;
  std::thread reader([&] {
    testing::eventually(
        [&] {
          auto f = feed.snapshot();
          if (f && f->running && f->result.total_requests > 0) mid = std::move(f);
          return mid.has_value();
        },
        5s);
  });
  const RunResult r = testing::must_run(live_config(*s), hooks);
  reader.join();
  s->stop();

  ASSERT_TRUE(mid.has_value()) << "no snapshot saw the run in progress";
  EXPECT_LE(mid->result.total_requests, r.total_requests);
  EXPECT_GE(mid->sent, mid->result.total_requests);
  EXPECT_EQ(mid->target_rps, 500);

  const std::optional<LiveFigures> end = feed.snapshot();
  ASSERT_TRUE(end.has_value());
  EXPECT_FALSE(end->running);
  ASSERT_GT(r.total_requests, 100u);
  EXPECT_EQ(end->result.total_requests, r.total_requests);
  EXPECT_EQ(end->result.total_errors, r.total_errors);
  EXPECT_GT(r.total_errors, 0u);
  EXPECT_EQ(end->result.status_counts, r.status_counts);
  EXPECT_EQ(end->result.error_codes, r.error_codes);
  EXPECT_EQ(end->result.bytes_read, r.bytes_read);
  EXPECT_EQ(end->result.latency.count(), r.latency.count());
  EXPECT_EQ(end->result.latency.percentile(99), r.latency.percentile(99));
  EXPECT_EQ(end->sent, r.rate->sent);
  EXPECT_EQ(end->in_flight, 0u);

  const stats::PrometheusBuckets buckets;
  const std::string text = render_prometheus(*end, buckets);
  EXPECT_EQ(sample_value(text, "stampede_requests_total"), static_cast<double>(r.total_requests));
  EXPECT_EQ(sample_value(text, "stampede_failed_requests_total"),
            static_cast<double>(r.total_errors));
  EXPECT_EQ(sample_value(text, "stampede_received_bytes_total"), static_cast<double>(r.bytes_read));
  EXPECT_EQ(sample_value(text, "stampede_run_active"), 0);
  EXPECT_EQ(sample_value(text, "stampede_target_requests_per_second"), 500);
  EXPECT_NE(text.find("stampede_responses_total{status=\"503\"} " +
                      std::to_string(r.status_counts.at(503)) + "\n"),
            std::string::npos);
  for (double q : {0.5, 0.99}) {
    const double ours = static_cast<double>(r.latency.percentile(q * 100)) / 1e9;
    EXPECT_NEAR(quantile_from_text(text, q), ours, 0.02 * ours) << q;
  }
}

TEST(LiveMetrics, RepeatedRunsAddUp) {
  auto s = testing::start_server();
  ASSERT_TRUE(s);
  Config c = live_config(*s);
  c.rps = 0;
  c.max_duration = 0s;
  c.max_requests = 300;
  LiveFeed feed;
  RunHooks hooks;
  hooks.live = &feed;
  const RunResult first = testing::must_run(c, hooks);
  const RunResult second = testing::must_run(c, hooks);
  s->stop();
  const auto end = feed.snapshot();
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(first.total_requests + second.total_requests, 600u);
  EXPECT_EQ(end->result.total_requests, 600u);
  EXPECT_EQ(end->sent, 600u);
  EXPECT_EQ(end->result.latency.count(), 600u);
}

TEST(LiveMetrics, TextPassesPromtoolLint) {
  if (access("/usr/bin/promtool", X_OK) != 0) GTEST_SKIP() << "promtool missing (prometheus)";
  auto s = testing::start_server();
  ASSERT_TRUE(s);
  Config c = live_config(*s);
  c.max_duration = 300ms;
  LiveFeed feed;
  RunHooks hooks;
  hooks.live = &feed;
  testing::must_run(c, hooks);
  s->stop();
  const stats::PrometheusBuckets buckets;
  const std::string text = render_prometheus(*feed.snapshot(), buckets);
  testing::TempDir dir;
  const std::string path = dir.path() + "/metrics.txt";
  {
    std::ofstream out(path);
    out << text;
  }
  const auto lint =
      testing::run_command({"/bin/sh", "-c", "/usr/bin/promtool check metrics < " + path}, 20s);
  EXPECT_EQ(lint.status, 0) << lint.out << lint.err;
  EXPECT_EQ(lint.out + lint.err, "") << "lint warnings";
}

// A worker whose loop has ended is read from its final figures, never posted to: a scrape while
// another worker still runs answers at once, and run() returns without waiting for it. Here one
// worker has no request to make and ends at once, the other waits 400 ms for its one answer;
// the feed would wait 10 s for an unanswered worker (holding run()'s return as long).
TEST(LiveMetrics, AWorkerThatEndedNeverDelaysAScrapeNorTheRun) {
  server::ServerOptions options;
  options.delay = 400ms;
  auto s = testing::start_server(options);
  ASSERT_TRUE(s);
  Config c = live_config(*s);
  c.rps = 0;
  c.max_duration = 0s;
  c.max_requests = 1;
  c.concurrency = 2;  // one connection per worker
  LiveFeed feed(10s);
  RunHooks hooks;
  hooks.live = &feed;
  std::atomic<bool> done{false};
  std::chrono::steady_clock::duration longest{0};
  int while_running = 0;
  std::thread scraper([&] {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (!done.load() && std::chrono::steady_clock::now() < deadline) {
      const auto t0 = std::chrono::steady_clock::now();
      const auto f = feed.snapshot();
      longest = std::max(longest, std::chrono::steady_clock::now() - t0);
      if (f && f->running) ++while_running;
      std::this_thread::sleep_for(1ms);  // a scrape every millisecond or so, not a synchronisation
    }
  });
  const auto t0 = std::chrono::steady_clock::now();
  const RunResult r = testing::must_run(c, hooks);
  const auto run_took = std::chrono::steady_clock::now() - t0;
  done = true;
  scraper.join();
  s->stop();
  EXPECT_EQ(r.total_requests, 1u);
  EXPECT_GT(while_running, 0) << "no scrape happened while the run went";
  // Without the fix each: 10 s. With it: a few ms, and 400 ms plus start-up; 5 s is the margin.
  EXPECT_LT(longest, 5s);
  EXPECT_LT(run_took, 5s);
}

}  // namespace
}  // namespace stampede::loadgen
