// Shard: the K-th of N interleaved parts of one run (--shard K/N; docs/distributed.md).
//
// Requests are numbered 1..total as in a single run; shard K takes the numbers t with
// (t - 1) mod N = K - 1. The same interleave applies to the --rps schedule: the shard's k-th
// request (0-based) holds slot k N + K - 1 of the single run's schedule, so the union of the
// shards' sends is the single run's evenly spaced schedule. -n and -c are split by the same rule;
// a Config always holds the whole run's values and the runner takes the shard's part of them.
//
// Pure arithmetic, no state: copied freely, used on any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/expected.h"

namespace stampede::loadgen {

struct Shard {
  std::uint32_t index = 1;  // K, from 1
  std::uint32_t count = 1;  // N; 1: the whole run

  bool whole() const { return count == 1; }
  // The run's request number of this shard's `local`-th request (both from 1).
  std::uint64_t global_number(std::uint64_t local) const { return (local - 1) * count + index; }
  // The single run's schedule slot (from 0) of this shard's k-th request (from 0).
  std::uint64_t global_slot(std::uint64_t k) const { return k * count + (index - 1); }
  // How many of the numbers 1..total are this shard's.
  std::uint64_t share_of(std::uint64_t total) const {
    return total >= index ? (total - index) / count + 1 : 0;
  }
  // How many of the slots 0..slots-1 are this shard's.
  std::uint64_t slots_of(std::uint64_t slots) const { return share_of(slots); }
  // This shard's part of `connections`, as evenly as it divides (the first ones get one more).
  std::uint32_t connections_of(std::uint32_t connections) const {
    return connections / count + (index - 1 < connections % count ? 1 : 0);
  }
};

// "K/N" with 1 <= K <= N. The message is one line for the user.
Expected<Shard> parse_shard(std::string_view text);

// Checks a shard against the whole run's -c and -n (0: none): each shard needs a connection,
// and a request when -n is given.
Expected<void> check_shard(const Shard& shard, std::uint32_t concurrency, std::uint64_t requests);

// --start-at: RFC 3339 ("2026-12-03T22:00:00Z", "...T23:00:00.250+01:00") or Unix seconds
// ("1796335200", "1796335200.25"), as nanoseconds since the Unix epoch.
Expected<std::int64_t> parse_start_time(std::string_view text);

// Unix nanoseconds as RFC 3339 in UTC with milliseconds: "2026-12-03T22:00:00.250Z".
std::string format_start_time(std::int64_t unix_ns);

}  // namespace stampede::loadgen
