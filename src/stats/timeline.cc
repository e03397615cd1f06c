#include "stats/timeline.h"

#include <algorithm>
#include <limits>
#include <span>

#include "stats/log_linear.h"

namespace stampede::stats {
namespace {

// 64 sub-buckets per octave, 16 ns finest step, up to 1 hour: 2112 counts per row.
constexpr LogLinearLayout kRowLayout{6, 4, 3'600'000'000'000};
static_assert(kRowLayout.index_of(kRowLayout.highest()) < kRowLayout.counts_len());

constexpr std::uint32_t kCountMax = std::numeric_limits<std::uint32_t>::max();

// The widths in turn: 100 ms, 1 s, 2 s, 4 s, ... (each a whole multiple of the one before).
std::int64_t next_width(std::int64_t width_ns) {
  return width_ns == Timeline::kFineRowWidthNs ? Timeline::kSecondNs : 2 * width_ns;
}

std::size_t row_limit_of(std::int64_t width_ns) {
  return width_ns == Timeline::kFineRowWidthNs ? Timeline::kFineRows : Timeline::kMaxRows;
}

// The width rows must have for an event offset_ns after the start, from width_ns on.
std::int64_t width_for(std::int64_t width_ns, std::int64_t offset_ns) {
  while (static_cast<std::uint64_t>(offset_ns / width_ns) >= row_limit_of(width_ns))
    width_ns = next_width(width_ns);
  return width_ns;
}

std::uint32_t saturating_add(std::uint32_t a, std::uint32_t b) {
  return b > kCountMax - a ? kCountMax : a + b;
}

}  // namespace

void Timeline::Row::record_latency(std::int64_t ns) {
  const std::int64_t v = std::clamp<std::int64_t>(ns, 0, kRowLayout.highest());
  if (latency.empty()) latency.assign(static_cast<std::size_t>(kRowLayout.counts_len()), 0);
  std::uint32_t& count = latency[static_cast<std::size_t>(kRowLayout.index_of(v))];
  count = saturating_add(count, 1);
  latency_min = latency_count == 0 ? v : std::min(latency_min, v);
  latency_max = latency_count == 0 ? v : std::max(latency_max, v);
  ++latency_count;
}

void Timeline::Row::add(const Row& other) {
  sent += other.sent;
  completed += other.completed;
  errors_4xx += other.errors_4xx;
  errors_5xx += other.errors_5xx;
  errors_transport += other.errors_transport;
  if (other.latency_count == 0) return;
  if (latency.empty()) latency.assign(other.latency.size(), 0);
  for (std::size_t i = 0; i < latency.size(); ++i)
    latency[i] = saturating_add(latency[i], other.latency[i]);
  latency_min = latency_count == 0 ? other.latency_min : std::min(latency_min, other.latency_min);
  latency_max = latency_count == 0 ? other.latency_max : std::max(latency_max, other.latency_max);
  latency_count += other.latency_count;
}

std::int64_t Timeline::Row::latency_percentile(double p) const {
  if (latency_count == 0) return 0;
  // Saturated counts can sum below latency_count: rank against what the sketch holds.
  std::uint64_t held = 0;
  for (const std::uint32_t c : latency)
    held += c;
  const int index =
      index_at_rank(std::span<const std::uint32_t>(latency), rank_at_percentile(p, held));
  return std::clamp(kRowLayout.highest_equivalent(index), latency_min, latency_max);
}

Timeline::Timeline(std::int64_t start_ns) : start_ns_(start_ns) {}

std::size_t Timeline::row_limit() const {
  return row_limit_of(width_ns_);
}

Timeline::Row& Timeline::row_at_offset(std::int64_t offset_ns) {
  const std::int64_t offset = std::max<std::int64_t>(offset_ns, 0);
  while (static_cast<std::uint64_t>(offset / width_ns_) >= row_limit())
    coarsen();
  const auto index = static_cast<std::size_t>(offset / width_ns_);
  if (index >= rows_.size()) rows_.resize(index + 1);
  return rows_[index];
}

Timeline::Row& Timeline::row_at(std::int64_t now_ns) {
  // Saturate instead of overflowing when now_ns is far before the start.
  const std::int64_t offset =
      now_ns < start_ns_ ? 0
                         : static_cast<std::int64_t>(static_cast<std::uint64_t>(now_ns) -
                                                     static_cast<std::uint64_t>(start_ns_));
  last_offset_ns_ = std::max(last_offset_ns_, offset);
  return row_at_offset(offset);
}

void Timeline::coarsen() {
  const std::int64_t next = next_width(width_ns_);
  const auto factor = static_cast<std::size_t>(next / width_ns_);
  const std::size_t merged = (rows_.size() + factor - 1) / factor;
  // Row j gathers rows factor*j ...: every one of them is at or after j, so none is read after
  // it was overwritten.
  for (std::size_t j = 0; j < merged; ++j) {
    if (j != factor * j) rows_[j] = std::move(rows_[factor * j]);
    for (std::size_t k = factor * j + 1; k < factor * (j + 1) && k < rows_.size(); ++k)
      rows_[j].add(rows_[k]);
  }
  rows_.resize(merged);
  width_ns_ = next;
}

void Timeline::on_sent(std::int64_t now_ns) {
  ++row_at(now_ns).sent;
}

void Timeline::on_completed(std::int64_t now_ns, std::int64_t latency_ns, ErrorClass cls) {
  Row& row = row_at(now_ns);
  ++row.completed;
  switch (cls) {
    case ErrorClass::None:
      break;
    case ErrorClass::Http4xx:
      ++row.errors_4xx;
      break;
    case ErrorClass::Http5xx:
      ++row.errors_5xx;
      break;
    case ErrorClass::Transport:
      ++row.errors_transport;
      break;
  }
  row.record_latency(latency_ns);
}

Expected<void> Timeline::merge(const Timeline& other) {
  if (other.start_ns_ != start_ns_)
    return make_error("cannot merge timelines with different start times");
  if (&other == this) {
    const Timeline copy = other;
    return merge(copy);
  }
  while (width_ns_ < other.width_ns_)
    coarsen();
  for (std::size_t j = 0; j < other.rows_.size(); ++j)
    row_at_offset(static_cast<std::int64_t>(j) * other.width_ns_).add(other.rows_[j]);
  last_offset_ns_ = std::max(last_offset_ns_, other.last_offset_ns_);
  return {};
}

std::size_t Timeline::row_counts_len() {
  return static_cast<std::size_t>(kRowLayout.counts_len());
}

Expected<void> Timeline::add_rows(std::int64_t offset_ns, std::int64_t width_ns,
                                  const std::vector<Row>& rows) {
  std::int64_t width = kFineRowWidthNs;
  while (width < width_ns && width < (std::int64_t{1} << 62) / 2)
    width = next_width(width);
  if (width != width_ns) {
    return make_error("timeline row width is neither 100 ms nor a power of two seconds");
  }
  if (offset_ns < 0) return make_error("timeline offset is negative");
  for (const Row& r : rows) {
    if ((r.latency_count > 0) == r.latency.empty() ||
        (!r.latency.empty() && r.latency.size() != row_counts_len())) {
      return make_error("timeline row sketch has the wrong length");
    }
  }
  while (width_ns_ < width_ns)
    coarsen();
  for (std::size_t j = 0; j < rows.size(); ++j) {
    const std::int64_t at = offset_ns + static_cast<std::int64_t>(j) * width_ns;
    row_at_offset(at).add(rows[j]);
    // The saved rows do not say when in a row its last event was: its start is a lower bound.
    if (rows[j].sent > 0 || rows[j].completed > 0) last_offset_ns_ = std::max(last_offset_ns_, at);
  }
  return {};
}

std::vector<TimelineRow> Timeline::rows(std::int64_t end_offset_ns) const {
  if (rows_.empty()) return {};
  const std::int64_t end = std::max(end_offset_ns, last_offset_ns_);
  // Up to the row holding the end (an end on a row boundary closes the row before it).
  const std::int64_t last_ns = std::max<std::int64_t>(end - 1, 0);
  // A run that went on past its last event may need a coarser width than its events did.
  if (const std::int64_t width = width_for(width_ns_, last_ns); width != width_ns_) {
    Timeline coarser = *this;
    while (coarser.width_ns_ < width)
      coarser.coarsen();
    return coarser.rows(end);
  }
  const auto ending_row = static_cast<std::size_t>(last_ns / width_ns_);
  const std::size_t count = std::max(rows_.size(), ending_row + 1);
  const double width_s = static_cast<double>(width_ns_) / 1e9;
  const Row empty;
  std::vector<TimelineRow> out;
  out.reserve(count);
  const auto row_of = [&](const Row& r, std::size_t i, double width, double covered) {
    return TimelineRow{static_cast<double>(static_cast<std::int64_t>(i) * width_ns_) / 1e9,
                       width,
                       r.sent,
                       r.completed,
                       r.errors_4xx,
                       r.errors_5xx,
                       r.errors_transport,
                       r.latency_percentile(50),
                       r.latency_percentile(99),
                       covered,
                       r.latency_count > 0};
  };
  for (std::size_t i = 0; i + 1 < count; ++i)
    out.push_back(row_of(i < rows_.size() ? rows_[i] : empty, i, width_s, width_s));
  const std::size_t last = count - 1;
  const Row& tail = last < rows_.size() ? rows_[last] : empty;
  const std::int64_t tail_ns =
      std::clamp<std::int64_t>(end - static_cast<std::int64_t>(last) * width_ns_, 0, width_ns_);
  if (last > 0 && 2 * tail_ns < width_ns_) {
    Row both = last - 1 < rows_.size() ? rows_[last - 1] : empty;
    both.add(tail);
    out.back() = row_of(both, last - 1, 2 * width_s, width_s + static_cast<double>(tail_ns) / 1e9);
  } else {
    out.push_back(row_of(tail, last, width_s, static_cast<double>(tail_ns) / 1e9));
  }
  return out;
}

std::size_t Timeline::memory_bytes() const {
  std::size_t bytes = sizeof(*this) + rows_.capacity() * sizeof(Row);
  for (const Row& r : rows_)
    bytes += r.latency.capacity() * sizeof(std::uint32_t);
  return bytes;
}

}  // namespace stampede::stats
