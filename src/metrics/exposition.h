// Exposition: Prometheus text format 0.0.4, written one family at a time. The naming rules all
// of stampede's /metrics follow (the generator's, serve's and the balancer's; docs/metrics.md):
// every name starts `stampede_`, carries its unit (`_seconds`, `_bytes`), counters end `_total`,
// label values are escaped here and nowhere else.
//
// Several sources may share one Exposition (the lab's runs): family() of a name already seen
// selects that family again, so each family's HELP and TYPE are written once and its samples
// from every source come out together, as the format requires; set_common_labels() puts a
// source's labels first on each of its samples.
//
// Not thread-safe: one Exposition per rendering.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stampede::metrics {

// The content type of the text format.
inline constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

using Label = std::pair<std::string_view, std::string_view>;

class Exposition {
 public:
  enum class Type { Counter, Gauge, Histogram, Summary };

  // The # HELP and # TYPE lines of the family `name` (once per name); its samples follow.
  void family(std::string_view name, Type type, std::string_view help);
  // Labels written before each sample's own from now on (none by default).
  void set_common_labels(std::vector<std::pair<std::string, std::string>> labels) {
    common_ = std::move(labels);
  }
  // One sample `name{labels} value` (name includes a histogram's _bucket/_sum/_count suffix).
  void sample(std::string_view name, std::initializer_list<Label> labels, std::uint64_t value);
  void sample(std::string_view name, std::initializer_list<Label> labels, double value);
  // A family with one unlabelled sample.
  void counter(std::string_view name, std::string_view help, std::uint64_t value);
  void gauge(std::string_view name, std::string_view help, double value);

  // The text so far: every family in the order first named, each with all its samples.
  std::string take();

 private:
  struct Group {
    std::string name;
    std::string text;
  };
  void begin_sample(std::string_view name, std::initializer_list<Label> labels);
  std::string& out();  // the current family's text

  std::vector<Group> groups_;
  std::size_t current_ = 0;  // index in groups_
  std::vector<std::pair<std::string, std::string>> common_;
};

}  // namespace stampede::metrics
