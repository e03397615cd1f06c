#include "lab/sources.h"

#include <algorithm>

#include "core/enum_names.h"

namespace stampede::lab {
namespace {

std::uint64_t distance(std::uint64_t a, std::uint64_t b) {
  return a > b ? a - b : b - a;
}

std::uint64_t sum(const std::map<std::string, std::uint64_t>& m) {
  std::uint64_t total = 0;
  for (const auto& [value, n] : m)
    total += n;
  return total;
}

// Moves the counts of one header into the rows (via `field`) or the stray map.
template <class Field>
void distribute(RunRecord& record, const HeaderCounts& headers, std::string_view header,
                Field field, std::map<std::string, std::uint64_t>& stray) {
  auto it = headers.find(std::string(header));
  if (it == headers.end()) return;
  for (const auto& [value, n] : it->second) {
    auto row = std::find_if(record.instances.begin(), record.instances.end(),
                            [&](const InstanceRow& r) { return r.name == value; });
    if (row != record.instances.end()) {
      (*row).*field += n;
    } else {
      stray[value] += n;
    }
  }
}

}  // namespace

constexpr EnumName<Source> kSourceNames[] = {
    {Source::Count, "/count"}, {Source::Instance, "x-instance"}, {Source::Backend, "x-backend"}};
static_assert(in_enum_order(kSourceNames));

std::string_view source_name(Source s) {
  return name_of(kSourceNames, s);
}

void fill_sources(RunRecord& record, const HeaderCounts& headers,
                  const std::vector<std::optional<std::uint64_t>>& served) {
  distribute(record, headers, kInstanceHeader, &InstanceRow::by_instance,
             record.stray_instance_values);
  distribute(record, headers, kBackendHeader, &InstanceRow::by_backend,
             record.stray_backend_values);
  auto backend = headers.find(std::string(kBackendHeader));
  record.backend_header = backend != headers.end() && !backend->second.empty();
  for (std::size_t i = 0; i < record.instances.size() && i < served.size(); ++i)
    record.instances[i].served = served[i];
}

SourceCheck check_sources(const RunRecord& record) {
  SourceCheck check;
  check.tolerance = record.errors;
  check.backend_compared = record.backend_header;
  check.stray_instance = sum(record.stray_instance_values);
  for (const InstanceRow& row : record.instances) {
    if (check.backend_compared && distance(row.by_backend, row.by_instance) > check.tolerance) {
      check.backend_gaps.push_back({row.name, Source::Backend, row.by_backend, row.by_instance});
    }
    if (row.served && distance(*row.served, row.by_instance) > check.tolerance) {
      check.count_gaps.push_back({row.name, Source::Count, *row.served, row.by_instance});
    }
  }
  if (check.backend_compared) check.stray_backend = sum(record.stray_backend_values);
  return check;
}

Source share_source(const RunRecord& record) {
  const bool all_read = std::all_of(record.instances.begin(), record.instances.end(),
                                    [](const InstanceRow& r) { return r.served.has_value(); });
  return all_read ? Source::Count : Source::Instance;
}

std::uint64_t count_of(const InstanceRow& row, Source source) {
  switch (source) {
    case Source::Count:
      return row.served.value_or(0);
    case Source::Instance:
      return row.by_instance;
    case Source::Backend:
      return row.by_backend;
  }
  return 0;
}

std::vector<double> shares(const RunRecord& record, Source source) {
  std::uint64_t total = 0;
  for (const InstanceRow& row : record.instances)
    total += count_of(row, source);
  std::vector<double> out;
  for (const InstanceRow& row : record.instances) {
    out.push_back(
        total == 0 ? 0.0 : static_cast<double>(count_of(row, source)) / static_cast<double>(total));
  }
  return out;
}

}  // namespace stampede::lab
