// Exposition: Prometheus text format 0.0.4, written one family at a time. The naming rules all
// of stampede's /metrics follow (the generator's, serve's and the balancer's; docs/metrics.md):
// every name starts `stampede_`, carries its unit (`_seconds`, `_bytes`), counters end `_total`,
// label values are escaped here and nowhere else.
//
// Not thread-safe: one Exposition per rendering.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace stampede::metrics {

// The content type of the text format.
inline constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

using Label = std::pair<std::string_view, std::string_view>;

class Exposition {
 public:
  enum class Type { Counter, Gauge, Histogram, Summary };

  // The # HELP and # TYPE lines of the family `name`; its samples follow.
  void family(std::string_view name, Type type, std::string_view help);
  // One sample `name{labels} value` (name includes a histogram's _bucket/_sum/_count suffix).
  void sample(std::string_view name, std::initializer_list<Label> labels, std::uint64_t value);
  void sample(std::string_view name, std::initializer_list<Label> labels, double value);
  // A family with one unlabelled sample.
  void counter(std::string_view name, std::string_view help, std::uint64_t value);
  void gauge(std::string_view name, std::string_view help, double value);

  const std::string& text() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  void begin_sample(std::string_view name, std::initializer_list<Label> labels);
  std::string out_;
};

}  // namespace stampede::metrics
