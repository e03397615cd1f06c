#include "stats/timeline.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/random.h"

namespace stampede::stats {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;
constexpr std::int64_t kStart = 5 * kSecond;
constexpr std::size_t kMiB = 1024 * 1024;

std::uint64_t total_sent(const Timeline& t) {
  std::uint64_t sum = 0;
  for (const TimelineRow& r : t.rows())
    sum += r.sent;
  return sum;
}

void expect_rows_equal(const std::vector<TimelineRow>& a, const std::vector<TimelineRow>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].t_start_s, b[i].t_start_s) << i;
    EXPECT_EQ(a[i].width_s, b[i].width_s) << i;
    EXPECT_EQ(a[i].sent, b[i].sent) << i;
    EXPECT_EQ(a[i].completed, b[i].completed) << i;
    EXPECT_EQ(a[i].errors_4xx, b[i].errors_4xx) << i;
    EXPECT_EQ(a[i].errors_5xx, b[i].errors_5xx) << i;
    EXPECT_EQ(a[i].errors_transport, b[i].errors_transport) << i;
    EXPECT_EQ(a[i].p50_ns, b[i].p50_ns) << i;
    EXPECT_EQ(a[i].p99_ns, b[i].p99_ns) << i;
  }
}

TEST(Timeline, BucketsEventsBySecond) {
  Timeline t(kStart);
  EXPECT_TRUE(t.rows().empty());
  t.on_sent(kStart - 1000);  // before the start: first row
  t.on_sent(kStart + kSecond / 5);
  t.on_sent(kStart + kSecond - 1);
  t.on_sent(kStart + kSecond);
  t.on_completed(kStart + kSecond / 2, 100'000, ErrorClass::None);
  t.on_completed(kStart + 1500 * kSecond / 1000, 200'000, ErrorClass::Http4xx);
  t.on_completed(kStart + 1600 * kSecond / 1000, 300'000, ErrorClass::Http5xx);
  t.on_completed(kStart + 1700 * kSecond / 1000, 90 * kSecond, ErrorClass::Transport);
  t.on_completed(kStart + 3200 * kSecond / 1000, 1'000'000, ErrorClass::None);

  const std::vector<TimelineRow> rows = t.rows();
  ASSERT_EQ(rows.size(), 4u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].t_start_s, static_cast<double>(i));
    EXPECT_EQ(rows[i].width_s, 1.0);
  }
  EXPECT_EQ(rows[0].sent, 3u);
  EXPECT_EQ(rows[0].completed, 1u);
  EXPECT_EQ(rows[0].p50_ns, 100'000);
  EXPECT_EQ(rows[0].p99_ns, 100'000);

  EXPECT_EQ(rows[1].sent, 1u);
  EXPECT_EQ(rows[1].completed, 3u);
  EXPECT_EQ(rows[1].errors_4xx, 1u);
  EXPECT_EQ(rows[1].errors_5xx, 1u);
  EXPECT_EQ(rows[1].errors_transport, 1u);
  // The transport error carries no latency: p50 is the 200 us response, p99 the 300 us one.
  EXPECT_GE(rows[1].p50_ns, 200'000);
  EXPECT_LE(rows[1].p50_ns, 200'000 * 1.016);
  EXPECT_EQ(rows[1].p99_ns, 300'000);

  EXPECT_EQ(rows[2].sent, 0u);
  EXPECT_EQ(rows[2].completed, 0u);
  EXPECT_EQ(rows[2].p50_ns, 0);
  EXPECT_EQ(rows[3].completed, 1u);
  EXPECT_EQ(rows[3].p99_ns, 1'000'000);
  EXPECT_EQ(t.row_width_ns(), kSecond);
}

TEST(Timeline, RowPercentilesWithinSketchPrecision) {
  Timeline t(0);
  Random rng(21);
  std::vector<std::int64_t> latencies(10'000);
  for (auto& v : latencies) {
    v = static_cast<std::int64_t>(std::exp(std::log(1e4) + rng.unit() * std::log(1e4)));
    t.on_completed(kSecond / 2, v, ErrorClass::None);
  }
  std::sort(latencies.begin(), latencies.end());
  const TimelineRow row = t.rows().at(0);
  const std::int64_t p50 = latencies[5000 - 1];
  const std::int64_t p99 = latencies[9900 - 1];
  EXPECT_GE(row.p50_ns, p50);
  EXPECT_LE(row.p50_ns, p50 * (1 + 1.0 / 64));
  EXPECT_GE(row.p99_ns, p99);
  EXPECT_LE(row.p99_ns, p99 * (1 + 1.0 / 64));
}

TEST(Timeline, MergeAddsRowsAndEqualsOneTimelineOfAll) {
  Timeline a(kStart);
  Timeline b(kStart);
  Timeline all(kStart);
  Random rng(3);
  for (int i = 0; i < 5000; ++i) {
    Timeline& part = rng.below(2) == 0 ? a : b;
    const std::int64_t now = kStart + static_cast<std::int64_t>(rng.below(15 * kSecond));
    const std::int64_t latency = 1000 + static_cast<std::int64_t>(rng.below(50'000'000));
    const auto cls = static_cast<ErrorClass>(rng.below(4));
    part.on_sent(now);
    part.on_completed(now, latency, cls);
    all.on_sent(now);
    all.on_completed(now, latency, cls);
  }
  a.on_sent(kStart + 20 * kSecond);  // a runs longer than b
  all.on_sent(kStart + 20 * kSecond);
  ASSERT_TRUE(b.merge(a).ok());
  expect_rows_equal(b.rows(), all.rows());
  EXPECT_EQ(b.rows().size(), 21u);
}

TEST(Timeline, MergeRejectsDifferentStart) {
  Timeline a(kStart);
  Timeline b(kStart + 1);
  a.on_sent(kStart);
  b.on_sent(kStart + 1);
  const Expected<void> merged = a.merge(b);
  EXPECT_FALSE(merged.ok());
  EXPECT_FALSE(merged.error().message.empty());
  EXPECT_EQ(total_sent(a), 1u);
}

TEST(Timeline, MergeFoldsFinerRowsIntoCoarser) {
  // long_run lasts 2 hours (2 s rows); short_run 10 minutes (1 s rows).
  Timeline long_run(0);
  Timeline short_run(0);
  Timeline all(0);
  for (std::int64_t s = 0; s < 7200; ++s) {
    long_run.on_sent(s * kSecond + kSecond / 3);
    all.on_sent(s * kSecond + kSecond / 3);
  }
  for (std::int64_t s = 0; s < 600; ++s) {
    const std::int64_t now = s * kSecond + kSecond / 2;
    short_run.on_completed(now, (s + 1) * 1000, ErrorClass::None);
    all.on_completed(now, (s + 1) * 1000, ErrorClass::None);
  }
  ASSERT_EQ(long_run.row_width_ns(), 2 * kSecond);
  ASSERT_EQ(short_run.row_width_ns(), kSecond);
  Timeline into_short = short_run;
  ASSERT_TRUE(into_short.merge(long_run).ok());
  ASSERT_TRUE(long_run.merge(short_run).ok());
  EXPECT_EQ(long_run.row_width_ns(), 2 * kSecond);
  expect_rows_equal(long_run.rows(), all.rows());
  expect_rows_equal(into_short.rows(), all.rows());
  const std::vector<TimelineRow> rows = long_run.rows();
  ASSERT_EQ(rows.size(), 3600u);
  EXPECT_EQ(rows[0].sent, 2u);
  EXPECT_EQ(rows[0].completed, 2u);
  EXPECT_EQ(rows[0].p99_ns, 2000);
  EXPECT_EQ(rows[299].completed, 2u);
  EXPECT_EQ(rows[300].completed, 0u);
  EXPECT_EQ(rows[3599].t_start_s, 7198.0);
}

// Heap bytes in use, as glibc reports them; 0 under AddressSanitizer, which replaces malloc.
std::size_t heap_in_use() {
  return mallinfo2().uordblks;
}

TEST(Timeline, OneHourOfFullRowsStaysUnder64MiB) {
  const std::size_t heap_before = heap_in_use();
  auto t = std::make_unique<Timeline>(0);
  for (std::int64_t s = 0; s < 3600; ++s) {
    t->on_sent(s * kSecond);
    // Latencies over the whole range: every row's sketch is in use.
    t->on_completed(s * kSecond, 1 + s * 1'000'000'000, ErrorClass::None);
  }
  EXPECT_EQ(t->row_width_ns(), kSecond);
  EXPECT_EQ(t->rows().size(), Timeline::kMaxRows);
  EXPECT_LT(t->memory_bytes(), 64 * kMiB);
  EXPECT_GT(t->memory_bytes(), 3600u * 8000);  // each row holds a real sketch
  const std::size_t heap_after = heap_in_use();
  if (heap_before != 0 || heap_after != 0) {
    EXPECT_LT(heap_after - heap_before, 64 * kMiB);
  }
}

TEST(Timeline, LongRunCoarsensAndStaysBounded) {
  Timeline t(kStart);
  const std::int64_t step = kSecond / 4;
  const std::int64_t events = 10 * 3600 * 4;  // 10 hours, 4 events a second
  for (std::int64_t i = 0; i < events; ++i) {
    const std::int64_t now = kStart + i * step;
    t.on_sent(now);
    t.on_completed(now, 50'000 + (i % 100) * 1000, ErrorClass::None);
  }
  const std::vector<TimelineRow> rows = t.rows();
  EXPECT_LE(rows.size(), Timeline::kMaxRows);
  // 36000 s in at most 3600 rows: the width doubled to 16 s.
  EXPECT_EQ(t.row_width_ns(), 16 * kSecond);
  EXPECT_EQ(rows.size(), 2250u);
  EXPECT_EQ(total_sent(t), static_cast<std::uint64_t>(events));
  for (const TimelineRow& r : rows) {
    ASSERT_EQ(r.sent, 64u);
    ASSERT_EQ(r.completed, 64u);
    EXPECT_EQ(r.width_s, 16.0);
    EXPECT_GE(r.p50_ns, 50'000);
    EXPECT_LE(r.p99_ns, 149'000);
  }
  EXPECT_LT(t.memory_bytes(), 64 * kMiB);
}

}  // namespace
}  // namespace stampede::stats
