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
    EXPECT_EQ(a[i].covered_s, b[i].covered_s) << i;
    EXPECT_EQ(a[i].has_latency, b[i].has_latency) << i;
  }
}

TEST(Timeline, BucketsEventsByTenthOfASecond) {
  constexpr std::int64_t kTenth = kSecond / 10;
  Timeline t(kStart);
  EXPECT_TRUE(t.rows().empty());
  t.on_sent(kStart - 1000);  // before the start: first row
  t.on_sent(kStart + kTenth / 5);
  t.on_sent(kStart + kTenth - 1);
  t.on_sent(kStart + kTenth);
  t.on_completed(kStart + kTenth / 2, 100'000, ErrorClass::None);
  t.on_completed(kStart + 150 * kTenth / 100, 200'000, ErrorClass::Http4xx);
  t.on_completed(kStart + 160 * kTenth / 100, 300'000, ErrorClass::Http5xx);
  t.on_completed(kStart + 170 * kTenth / 100, 90 * kSecond, ErrorClass::Transport);
  t.on_completed(kStart + 350 * kTenth / 100, 1'000'000, ErrorClass::None);

  const std::vector<TimelineRow> rows = t.rows();
  ASSERT_EQ(rows.size(), 4u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_DOUBLE_EQ(rows[i].t_start_s, 0.1 * static_cast<double>(i));
    EXPECT_DOUBLE_EQ(rows[i].width_s, 0.1);
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
  // The transport failure's latency counts, as in the summary: p50 is the 300 us response, p99
  // the 90 s failure.
  EXPECT_GE(rows[1].p50_ns, 300'000);
  EXPECT_LE(rows[1].p50_ns, 300'000 * 1.016);
  EXPECT_EQ(rows[1].p99_ns, 90 * kSecond);

  EXPECT_EQ(rows[2].sent, 0u);
  EXPECT_EQ(rows[2].completed, 0u);
  EXPECT_FALSE(rows[2].has_latency);
  EXPECT_EQ(rows[2].p50_ns, 0);
  EXPECT_EQ(rows[3].completed, 1u);
  EXPECT_EQ(rows[3].p99_ns, 1'000'000);
  // The last row ends with the last event, half-way through it.
  EXPECT_DOUBLE_EQ(rows[3].covered_s, 0.05);
  EXPECT_DOUBLE_EQ(rows[3].per_second(rows[3].completed), 20);
  EXPECT_EQ(t.row_width_ns(), kTenth);
}

// Every request timed out: the rows' latency is the failures', as the summary's percentiles are
// (it used to be empty under a summary p50 of 100 ms).
TEST(Timeline, FailuresHaveLatencyLikeTheSummary) {
  Timeline t(0);
  for (std::int64_t i = 0; i < 20; ++i)
    t.on_completed(100'000'000 + i * 1'000'000, 100'000'000 + i * 100'000, ErrorClass::Transport);
  const std::vector<TimelineRow> rows = t.rows(200'000'000);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].completed, 0u);
  EXPECT_FALSE(rows[0].has_latency);
  EXPECT_EQ(rows[1].errors_transport, 20u);
  EXPECT_TRUE(rows[1].has_latency);
  EXPECT_GE(rows[1].p50_ns, 100'900'000);
  EXPECT_LE(rows[1].p50_ns, 100'900'000 * 1.016);
  EXPECT_EQ(rows[1].p99_ns, 101'900'000);
}

// A run's last row covers from its start to the run's end: `--rps 1000 -t 2.5` used to show
// 1000, 1000, 500 req/s for a steady rate.
TEST(Timeline, PartialLastRowIsARateOverItsOwnTime) {
  Timeline t(kStart);
  const std::int64_t end = 12 * kSecond + kSecond / 2;  // 1 s rows: past the 10 s of fine rows
  for (std::int64_t at = 0; at < end; at += kSecond / 1000) {
    t.on_sent(kStart + at);
    t.on_completed(kStart + at, 1'000'000, ErrorClass::None);
  }
  const std::vector<TimelineRow> rows = t.rows(end);
  ASSERT_EQ(t.row_width_ns(), kSecond);
  ASSERT_EQ(rows.size(), 13u);
  for (const TimelineRow& r : rows) {
    EXPECT_NEAR(r.per_second(r.sent), 1000, 1e-6) << r.t_start_s;
    EXPECT_NEAR(r.per_second(r.completed), 1000, 1e-6) << r.t_start_s;
  }
  EXPECT_DOUBLE_EQ(rows.back().width_s, 1.0);
  EXPECT_DOUBLE_EQ(rows.back().covered_s, 0.5);
  EXPECT_EQ(rows.back().sent, 500u);
}

// A 0.018 s -n run is one row covering 0.018 s: its rate is the summary's, not 1000 req/s.
TEST(Timeline, RunShorterThanARowIsOneRowOfItsLength) {
  Timeline t(0);
  const std::int64_t end = 18'000'000;
  for (std::int64_t i = 0; i < 1000; ++i)
    t.on_completed(i * end / 1000, 50'000, ErrorClass::None);
  const std::vector<TimelineRow> rows = t.rows(end);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rows[0].covered_s, 0.018);
  EXPECT_NEAR(rows[0].per_second(rows[0].completed), 1000 / 0.018, 1e-6);
}

// The end defined by the last response can fall just past a row boundary: that sliver is reported
// with the row before, so one response in a microsecond does not draw a spike of a million req/s.
TEST(Timeline, ShortTailJoinsTheRowBefore) {
  Timeline t(0);
  for (std::int64_t at = 0; at < kSecond; at += kSecond / 100)
    t.on_completed(at, 1000, ErrorClass::None);
  t.on_completed(kSecond + 1000, 1000, ErrorClass::None);  // the last, 1 us into row 10
  const std::vector<TimelineRow> rows = t.rows();
  ASSERT_EQ(rows.size(), 10u);
  const TimelineRow& last = rows.back();
  EXPECT_DOUBLE_EQ(last.t_start_s, 0.9);
  EXPECT_DOUBLE_EQ(last.width_s, 0.2);
  EXPECT_NEAR(last.covered_s, 0.100001, 1e-12);
  EXPECT_EQ(last.completed, 11u);
  EXPECT_NEAR(last.per_second(last.completed), 110, 0.01);
  // A tail of half a row or more is a row of its own.
  t.on_completed(kSecond + kSecond / 20, 1000, ErrorClass::None);
  ASSERT_EQ(t.rows().size(), 11u);
  EXPECT_DOUBLE_EQ(t.rows().back().covered_s, 0.05);
}

// A run that goes on after its last event (a stall at the end, until -t) shows the silent rows.
TEST(Timeline, RowsReachTheRunsEnd) {
  Timeline t(0);
  t.on_sent(kSecond / 2);
  const std::vector<TimelineRow> rows = t.rows(3 * kSecond);
  ASSERT_EQ(rows.size(), 30u);
  EXPECT_EQ(rows[5].sent, 1u);
  EXPECT_EQ(rows.back().sent, 0u);
  EXPECT_DOUBLE_EQ(rows.back().covered_s, 0.1);
  // Past 10 s the rows are 1 s wide even when the events stopped earlier.
  const std::vector<TimelineRow> longer = t.rows(20 * kSecond);
  ASSERT_EQ(longer.size(), 20u);
  EXPECT_DOUBLE_EQ(longer[0].width_s, 1.0);
  EXPECT_EQ(longer[0].sent, 1u);
  EXPECT_EQ(t.row_width_ns(), kSecond / 10);  // rows() changes nothing
}

// Under 10 s the rows are 100 ms: a 0.5 s stall inside a second (invisible in 1 s rows) shows.
TEST(Timeline, ShortRunShowsAStallInsideASecond) {
  Timeline t(0);
  for (std::int64_t at = 0; at < 3 * kSecond; at += kSecond / 1000) {
    const bool stalled = at >= 1'200'000'000 && at < 1'700'000'000;
    if (!stalled) t.on_completed(at, 1000, ErrorClass::None);
  }
  const std::vector<TimelineRow> rows = t.rows(3 * kSecond);
  ASSERT_EQ(rows.size(), 30u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const bool stalled = i >= 12 && i < 17;
    EXPECT_EQ(rows[i].completed, stalled ? 0u : 100u) << i;
  }
}

TEST(Timeline, WidthFollowsTheRunsLength) {
  Timeline t(0);
  t.on_sent(10 * kSecond - 1);
  EXPECT_EQ(t.row_width_ns(), kSecond / 10);
  EXPECT_EQ(t.rows().size(), 100u);
  t.on_sent(10 * kSecond);  // the first event at 10 s folds the rows ten to one
  EXPECT_EQ(t.row_width_ns(), kSecond);
  const std::vector<TimelineRow> rows = t.rows(11 * kSecond);
  ASSERT_EQ(rows.size(), 11u);
  EXPECT_EQ(rows[9].sent, 1u);
  EXPECT_EQ(rows[10].sent, 1u);
  t.on_sent(127 * kSecond);
  EXPECT_EQ(t.row_width_ns(), kSecond);  // 128 rows of 1 s
  t.on_sent(128 * kSecond);
  EXPECT_EQ(t.row_width_ns(), 2 * kSecond);
}

TEST(Timeline, RowPercentilesWithinSketchPrecision) {
  Timeline t(0);
  Random rng(21);
  std::vector<std::int64_t> latencies(10'000);
  for (auto& v : latencies) {
    v = static_cast<std::int64_t>(std::exp(std::log(1e4) + rng.unit() * std::log(1e4)));
    t.on_completed(kSecond / 20, v, ErrorClass::None);  // inside the first row
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
  // The last event, at 20 s, is 0 s into row 20: it is reported with row 19.
  EXPECT_EQ(b.rows().size(), 20u);
  EXPECT_EQ(b.rows().back().width_s, 2.0);
}

// A short run (100 ms rows) merges into a long one (1 s rows), and the other way round, exactly.
TEST(Timeline, MergeFoldsTenthsIntoSeconds) {
  Timeline fine(kStart);
  Timeline coarse(kStart);
  Timeline all(kStart);
  Random rng(8);
  for (int i = 0; i < 4000; ++i) {
    const bool short_one = rng.below(2) == 0;
    const std::int64_t span = short_one ? 5 * kSecond : 30 * kSecond;
    const std::int64_t now = kStart + static_cast<std::int64_t>(rng.below(span));
    const std::int64_t latency = 1000 + static_cast<std::int64_t>(rng.below(50'000'000));
    (short_one ? fine : coarse).on_completed(now, latency, ErrorClass::None);
    all.on_completed(now, latency, ErrorClass::None);
  }
  ASSERT_EQ(fine.row_width_ns(), kSecond / 10);
  ASSERT_EQ(coarse.row_width_ns(), kSecond);
  Timeline into_fine = fine;
  ASSERT_TRUE(into_fine.merge(coarse).ok());
  ASSERT_TRUE(coarse.merge(fine).ok());
  EXPECT_EQ(into_fine.row_width_ns(), kSecond);
  expect_rows_equal(into_fine.rows(30 * kSecond), all.rows(30 * kSecond));
  expect_rows_equal(coarse.rows(30 * kSecond), all.rows(30 * kSecond));
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
  // long_run lasts 256 s (2 s rows); short_run 60 s (1 s rows).
  Timeline long_run(0);
  Timeline short_run(0);
  Timeline all(0);
  for (std::int64_t s = 0; s < 256; ++s) {
    long_run.on_sent(s * kSecond + kSecond / 3);
    all.on_sent(s * kSecond + kSecond / 3);
  }
  for (std::int64_t s = 0; s < 60; ++s) {
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
  ASSERT_EQ(rows.size(), 128u);
  EXPECT_EQ(rows[0].sent, 2u);
  EXPECT_EQ(rows[0].completed, 2u);
  EXPECT_EQ(rows[0].p99_ns, 2000);
  EXPECT_EQ(rows[29].completed, 2u);
  EXPECT_EQ(rows[30].completed, 0u);
  EXPECT_EQ(rows[127].t_start_s, 254.0);
}

// Heap bytes in use, as glibc reports them; 0 under AddressSanitizer, which replaces malloc.
std::size_t heap_in_use() {
  return mallinfo2().uordblks;
}

// A soak's memory stays flat: an hour of rows, each with its sketch in use, holds at most
// kMaxRows sketches (113 rows of 32 s), not one a second.
TEST(Timeline, OneHourOfFullRowsStaysUnder2MiB) {
  const std::size_t heap_before = heap_in_use();
  auto t = std::make_unique<Timeline>(0);
  for (std::int64_t s = 0; s < 3600; ++s) {
    t->on_sent(s * kSecond);
    // Latencies over the whole range: every row's sketch is in use.
    t->on_completed(s * kSecond, 1 + s * 1'000'000'000, ErrorClass::None);
  }
  EXPECT_EQ(t->row_width_ns(), 32 * kSecond);
  EXPECT_EQ(t->rows(3600 * kSecond).size(), 113u);
  EXPECT_LT(t->memory_bytes(), 2 * kMiB);
  EXPECT_GT(t->memory_bytes(), 113u * 8000);  // each row holds a real sketch
  const std::size_t heap_after = heap_in_use();
  if (heap_before != 0 || heap_after != 0) {
    EXPECT_LT(heap_after - heap_before, 2 * kMiB);
  }
}

TEST(Timeline, LongRunCoarsensAndStaysBounded) {
  Timeline t(kStart);
  const std::int64_t step = kSecond / 4;
  const std::int64_t events = 32768 * 4;  // 9.1 hours, 4 events a second
  for (std::int64_t i = 0; i < events; ++i) {
    const std::int64_t now = kStart + i * step;
    t.on_sent(now);
    t.on_completed(now, 50'000 + (i % 100) * 1000, ErrorClass::None);
  }
  const std::vector<TimelineRow> rows = t.rows();
  // 32 768 s in at most 128 rows: the width doubled to 256 s.
  EXPECT_EQ(t.row_width_ns(), 256 * kSecond);
  EXPECT_EQ(rows.size(), Timeline::kMaxRows);
  EXPECT_EQ(total_sent(t), static_cast<std::uint64_t>(events));
  for (const TimelineRow& r : rows) {
    ASSERT_EQ(r.sent, 1024u);
    ASSERT_EQ(r.completed, 1024u);
    EXPECT_EQ(r.width_s, 256.0);
    EXPECT_GE(r.p50_ns, 50'000);
    EXPECT_LE(r.p99_ns, 149'000);
  }
  EXPECT_LT(t.memory_bytes(), 2 * kMiB);
}

}  // namespace
}  // namespace stampede::stats
