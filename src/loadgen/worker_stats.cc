#include "loadgen/worker_stats.h"

namespace stampede::loadgen {

WorkerStats::WorkerStats(std::size_t counted_headers) : header_counts_(counted_headers) {}

void WorkerStats::publish(std::int64_t start_ns, std::int64_t end_ns) {
  const std::int64_t latency_ns = end_ns - start_ns;
  ++requests_;
  if (end_ns > last_record_ns_) last_record_ns_ = end_ns;
  latency_sum_ns_ += static_cast<std::uint64_t>(latency_ns < 0 ? 0 : latency_ns);
  latency_.record(latency_ns);
  // Single writer: plain relaxed stores, no read-modify-write on the hot path.
  progress_.requests.store(requests_, std::memory_order_relaxed);
  progress_.errors.store(errors_, std::memory_order_relaxed);
  progress_.latency_sum_ns.store(latency_sum_ns_, std::memory_order_relaxed);
}

void WorkerStats::record_response(int status, std::int64_t start_ns, std::int64_t end_ns) {
  const int index = status >= 0 && status < kMaxStatus ? status : 0;
  ++statuses_[static_cast<std::size_t>(index)];
  if (is_error_status(status)) ++errors_;
  publish(start_ns, end_ns);
}

void WorkerStats::record_failure(int err, std::int64_t start_ns, std::int64_t end_ns) {
  const int index = err > 0 && err < kMaxErrno ? err : kMaxErrno - 1;
  ++failures_[static_cast<std::size_t>(index)];
  ++errors_;
  publish(start_ns, end_ns);
}

void WorkerStats::record_custom_error(std::string_view code, int status, std::int64_t start_ns,
                                      std::int64_t end_ns) {
  if (status > 0 && status < kMaxStatus) {
    ++statuses_[static_cast<std::size_t>(status)];
    if (is_error_status(status)) ++relabelled_[status];
  }
  auto it = custom_errors_.find(code);
  if (it == custom_errors_.end()) it = custom_errors_.emplace(std::string(code), 0).first;
  ++it->second;
  ++errors_;
  publish(start_ns, end_ns);
}

void WorkerStats::count_header_value(std::size_t index, std::string_view value) {
  ValueCounts& counts = header_counts_[index];
  auto it = counts.find(value);
  if (it == counts.end()) it = counts.emplace(std::string(value), 0).first;
  ++it->second;
}

void WorkerStats::merge(const WorkerStats& other) {
  latency_.merge(other.latency_);
  connect_.merge(other.connect_);
  tls_handshake_.merge(other.tls_handshake_);
  first_byte_.merge(other.first_byte_);
  requests_ += other.requests_;
  errors_ += other.errors_;
  for (std::size_t i = 0; i < statuses_.size(); ++i)
    statuses_[i] += other.statuses_[i];
  for (std::size_t i = 0; i < failures_.size(); ++i)
    failures_[i] += other.failures_[i];
  if (header_counts_.size() < other.header_counts_.size()) {
    header_counts_.resize(other.header_counts_.size());
  }
  for (std::size_t h = 0; h < other.header_counts_.size(); ++h) {
    for (const auto& [value, n] : other.header_counts_[h])
      header_counts_[h][value] += n;
  }
  for (const auto& [code, n] : other.custom_errors_)
    custom_errors_[code] += n;
  for (const auto& [status, n] : other.relabelled_)
    relabelled_[status] += n;
  bytes_read_ += other.bytes_read_;
  bytes_written_ += other.bytes_written_;
  connections_ += other.connections_;
  tls_handshakes_ += other.tls_handshakes_;
  tls_resumed_ += other.tls_resumed_;
  ws_.merge(other.ws_);
  h2_.merge(other.h2_);
  latency_sum_ns_ += other.latency_sum_ns_;
  if (other.last_record_ns_ > last_record_ns_) last_record_ns_ = other.last_record_ns_;
  if (other.rate_) {
    if (rate_) {
      rate_->merge(*other.rate_);
    } else {
      rate_ = std::make_unique<RateStats>(*other.rate_);
    }
  }
}

void WorkerStats::enable_rate(bool paced, bool timeline) {
  if (paced || timeline) rate_ = std::make_unique<RateStats>(paced, timeline);
}

std::uint64_t WorkerStats::status_count(int status) const {
  return status >= 0 && status < kMaxStatus ? statuses_[static_cast<std::size_t>(status)] : 0;
}

std::uint64_t WorkerStats::failure_count(int err) const {
  return err > 0 && err < kMaxErrno ? failures_[static_cast<std::size_t>(err)] : 0;
}

}  // namespace stampede::loadgen
