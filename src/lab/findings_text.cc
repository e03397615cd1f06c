// Formatting of the figures the findings quote (findings_detail.h).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "lab/findings_detail.h"

namespace stampede::lab::detail {

Finding note(FindingKind kind, std::string scope, std::string text) {
  return {kind, Verdict::Note, std::move(scope), std::move(text)};
}

Finding fail(FindingKind kind, std::string scope, std::string text) {
  return {kind, Verdict::Fail, std::move(scope), std::move(text)};
}

std::string pct(double share) {
  const double p = share * 100.0;
  if (p > 0 && p < 0.1) return fmt::format("{:.2f}%", p);
  return fmt::format("{:.1f}%", p);
}

std::string rate(double rps) {
  return fmt::format("{:.0f} req/s", rps);
}

std::string share_list(const RunRecord& run, Source source) {
  const std::vector<double> s = shares(run, source);
  std::string out;
  for (std::size_t i = 0; i < run.instances.size(); ++i) {
    if (!out.empty()) out += ", ";
    out += run.instances[i].name + " " + pct(s[i]);
  }
  return out;
}

std::string spread(const RunRecord& run, Source source) {
  if (run.instances.empty()) return "";
  std::uint64_t total = 0;
  auto lo = run.instances.begin(), hi = run.instances.begin();
  for (auto it = run.instances.begin(); it != run.instances.end(); ++it) {
    total += count_of(*it, source);
    if (count_of(*it, source) < count_of(*lo, source)) lo = it;
    if (count_of(*it, source) > count_of(*hi, source)) hi = it;
  }
  const std::uint64_t apart = count_of(*hi, source) - count_of(*lo, source);
  if (apart <= 1) {
    return fmt::format("{} request{} apart across {}", apart, apart == 1 ? "" : "s", total);
  }
  return fmt::format("{} {} to {} {}: {} apart across {}", lo->name, count_of(*lo, source),
                     hi->name, count_of(*hi, source), apart, total);
}

std::string code_list(const std::map<std::string, std::uint64_t>& codes) {
  std::string out;
  for (const auto& [code, n] : codes) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} x{}", code, n);
  }
  return out.empty() ? "no code" : out;
}

std::string direct_latency(const RunRecord& run) {
  std::string out;
  for (const InstanceRow& row : run.instances) {
    if (!row.direct_p50_ms) continue;
    const double v = *row.direct_p50_ms;
    out += fmt::format("{}{} ", out.empty() ? "direct p50: " : ", ", row.name);
    out += v < 10 ? fmt::format("{:.2f} ms", v) : fmt::format("{:.1f} ms", v);
  }
  return out;
}

bool identical(const RunRecord& run) {
  return std::all_of(run.instances.begin(), run.instances.end(), [&](const InstanceRow& r) {
    return r.delay_ms == run.instances.front().delay_ms;
  });
}

std::size_t slow_index(const RunRecord& run) {
  std::size_t best = run.instances.size();
  for (std::size_t i = 0; i < run.instances.size(); ++i) {
    if (best == run.instances.size() || run.instances[i].delay_ms > run.instances[best].delay_ms)
      best = i;
  }
  if (best == run.instances.size()) return best;
  for (std::size_t i = 0; i < run.instances.size(); ++i) {
    if (i != best && run.instances[i].delay_ms >= run.instances[best].delay_ms) {
      return run.instances.size();
    }
  }
  return best;
}

}  // namespace stampede::lab::detail
