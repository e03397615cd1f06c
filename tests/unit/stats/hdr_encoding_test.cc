// Histograms and timeline sketches through their text encoding and back: exactly equal.
#include "stats/hdr_encoding.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "stats/timeline.h"

namespace stampede::stats {
namespace {

Histogram restored(const Histogram& h) {
  auto counts = decode_hdr_base64(encode_hdr_base64(h));
  EXPECT_TRUE(counts.ok()) << (counts.ok() ? "" : counts.error().message);
  if (!counts.ok()) return {};
  auto back = Histogram::restore(*counts, h.totals());
  EXPECT_TRUE(back.ok()) << (back.ok() ? "" : back.error().message);
  return back.ok() ? std::move(back).value() : Histogram{};
}

void expect_same(const Histogram& a, const Histogram& b) {
  ASSERT_EQ(a.count(), b.count());
  EXPECT_EQ(a.min(), b.min());
  EXPECT_EQ(a.max(), b.max());
  EXPECT_EQ(a.mean(), b.mean());
  EXPECT_EQ(a.stddev(), b.stddev());
  for (double p : {0.0, 1.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0})
    EXPECT_EQ(a.percentile(p), b.percentile(p)) << p;
  const auto ca = a.counts(), cb = b.counts();
  EXPECT_TRUE(std::equal(ca.begin(), ca.end(), cb.begin(), cb.end()));
}

TEST(HdrEncoding, RoundTripsExactly) {
  Histogram h;
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> latency(13, 1.5);
  for (int i = 0; i < 20000; ++i)
    h.record(static_cast<std::int64_t>(latency(rng)));
  h.record(0);
  h.record(5'000'000'000'000);                    // past the hour: clamped, max exact
  h.record_n(1'234'567, std::uint64_t{1} << 40);  // a count that needs many LEB128 bytes
  expect_same(restored(h), h);
  expect_same(restored(Histogram{}), Histogram{});
}

// The shards' histograms, each saved and loaded, merge into one equal to the histogram that saw
// every value: percentiles identical, not close.
TEST(HdrEncoding, MergedShardsEqualOneHistogram) {
  Histogram all, merged;
  std::mt19937_64 rng(11);
  std::exponential_distribution<double> latency(1e-6);
  for (int shard = 0; shard < 4; ++shard) {
    Histogram part;
    for (int i = 0; i < 5000 * (shard + 1); ++i) {
      const auto v = static_cast<std::int64_t>(latency(rng)) + 100'000 * shard;
      part.record(v);
      all.record(v);
    }
    merged.merge(restored(part));
  }
  expect_same(merged, all);
}

TEST(HdrEncoding, RefusesCorruptInput) {
  Histogram h;
  h.record(1000);
  const std::string good = encode_hdr_base64(h);
  EXPECT_FALSE(decode_hdr_base64(good.substr(0, good.size() - 4)).ok());
  EXPECT_FALSE(decode_hdr_base64("not base64!").ok());
  EXPECT_FALSE(decode_hdr_base64("AAAA").ok());
  std::string flipped = good;
  flipped[20] = flipped[20] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(decode_hdr_base64(flipped).ok());
  auto counts = decode_hdr_base64(good);
  ASSERT_TRUE(counts.ok());
  HistogramTotals wrong = h.totals();
  wrong.count = 2;
  EXPECT_FALSE(Histogram::restore(*counts, wrong).ok());
}

TEST(HdrEncoding, Base64) {
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64_encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64_encode("foob"), "Zm9vYg==");
  EXPECT_EQ(*base64_decode("Zm9vYg=="), "foob");
  EXPECT_EQ(*base64_decode("Zm9vYmE="), "fooba");
  EXPECT_FALSE(base64_decode("Zm9=Yg==").ok());
}

// Two timelines from one start, their rows saved and added into a third, give the rows (and the
// per-row p50/p99) of one timeline fed every event.
TEST(TimelineRows, AddedRowsEqualOneTimeline) {
  constexpr std::int64_t kS = 1'000'000'000;
  Timeline a(0), b(0), all(0);
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<std::int64_t> when(0, 5 * kS), latency(1000, 50'000'000);
  for (int i = 0; i < 20000; ++i) {
    const std::int64_t t = when(rng), l = latency(rng);
    (i % 3 == 0 ? a : b).on_completed(t, l, ErrorClass::None);
    all.on_completed(t, l, ErrorClass::None);
  }
  Timeline merged(0);
  for (const Timeline* part : {&a, &b}) {
    std::vector<Timeline::Row> rows = part->sketch_rows();
    for (Timeline::Row& r : rows) {
      std::vector<std::uint32_t> back(Timeline::row_counts_len());
      ASSERT_TRUE(decode_counts_base64(encode_counts_base64(r.latency), back).ok());
      if (!r.latency.empty()) {
        EXPECT_EQ(back, r.latency);
      }
    }
    ASSERT_TRUE(merged.add_rows(0, part->row_width_ns(), rows).ok());
  }
  // The merged rows do not know when in its row the last event was: both end at the run's end.
  const auto got = merged.rows(5 * kS), want = all.rows(5 * kS);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].completed, want[i].completed) << i;
    EXPECT_EQ(got[i].p50_ns, want[i].p50_ns) << i;
    EXPECT_EQ(got[i].p99_ns, want[i].p99_ns) << i;
  }
  EXPECT_FALSE(merged.add_rows(0, 3 * kS, {}).ok());
  EXPECT_FALSE(merged.add_rows(0, kS / 5, {}).ok());
  EXPECT_TRUE(merged.add_rows(0, kS / 10, {}).ok());
  EXPECT_TRUE(merged.add_rows(0, 4 * kS, {}).ok());
  EXPECT_FALSE(merged.add_rows(-1, kS, {}).ok());
}

}  // namespace
}  // namespace stampede::stats
