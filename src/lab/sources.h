// The three sources of a run's shares — the instances' own /count, the `x-instance` header the
// instances stamp on responses, the `x-backend` header the balancer stamps — and where they
// disagree. Pure functions over numbers (unit-tested with hand-made ones).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lab/record.h"

namespace stampede::lab {

inline constexpr std::string_view kInstanceHeader = "x-instance";
inline constexpr std::string_view kBackendHeader = "x-backend";
inline constexpr std::string_view kSessionHeader = "x-session";

// Header name -> value -> responses (loadgen::RunResult::header_counts).
using HeaderCounts = std::map<std::string, std::map<std::string, std::uint64_t>>;

enum class Source { Count, Instance, Backend };
std::string_view source_name(Source s);  // "/count", "x-instance", "x-backend"

// Sets each row's by_instance and by_backend from `headers`, and `served` (one per row, in
// order) as read from /count. Values naming no row go to the record's stray maps.
void fill_sources(RunRecord& record, const HeaderCounts& headers,
                  const std::vector<std::optional<std::uint64_t>>& served);

// One instance whose two counts differ by more than the run allows.
struct SourceGap {
  std::string instance;
  Source source = Source::Backend;  // the source compared with x-instance
  std::uint64_t value = 0;          // that source's count
  std::uint64_t by_instance = 0;    // x-instance's count
};

struct SourceCheck {
  // Responses that did not come from an instance (error responses the balancer made, transport
  // failures) can carry x-backend without x-instance, and an instance can have served a request
  // whose response was lost: counts may differ by up to the run's errors, no more.
  std::uint64_t tolerance = 0;
  bool backend_compared = false;        // the balancer sets x-backend
  std::vector<SourceGap> backend_gaps;  // x-backend vs x-instance
  std::vector<SourceGap> count_gaps;    // /count vs x-instance (instances that were read)
  std::uint64_t stray_backend = 0;      // x-backend responses naming no instance
  std::uint64_t stray_instance = 0;     // x-instance responses naming no instance

  bool backend_agrees() const { return backend_gaps.empty() && stray_backend <= tolerance; }
  bool count_agrees() const { return count_gaps.empty() && stray_instance <= tolerance; }
};

SourceCheck check_sources(const RunRecord& record);

// The source the report's share column uses: /count when every instance was read (the guide's
// counts.mjs), else x-instance (an instance killed in the run cannot be asked).
Source share_source(const RunRecord& record);

// Each row's count from `source` (0 for an unread /count).
std::uint64_t count_of(const InstanceRow& row, Source source);

// Each row's share (0..1) of the rows' total from `source`; all 0 when the total is 0.
std::vector<double> shares(const RunRecord& record, Source source);

}  // namespace stampede::lab
