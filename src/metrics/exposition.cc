#include "metrics/exposition.h"

#include <cmath>

#include <fmt/format.h>

#include "core/enum_names.h"

namespace stampede::metrics {
namespace {

constexpr EnumName<Exposition::Type> kTypeNames[] = {{Exposition::Type::Counter, "counter"},
                                                     {Exposition::Type::Gauge, "gauge"},
                                                     {Exposition::Type::Histogram, "histogram"},
                                                     {Exposition::Type::Summary, "summary"}};
static_assert(in_enum_order(kTypeNames));

std::string_view type_name(Exposition::Type type) {
  return name_of(kTypeNames, type);
}

// HELP text escapes backslash and newline; label values also the double quote.
void append_escaped(std::string& out, std::string_view text, bool quote) {
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

}  // namespace

std::string& Exposition::out() {
  if (groups_.empty()) groups_.push_back({});  // samples before any family: a nameless group
  return groups_[current_].text;
}

std::string Exposition::take() {
  std::string all;
  for (Group& g : groups_)
    all += g.text;
  groups_.clear();
  current_ = 0;
  return all;
}

void Exposition::family(std::string_view name, Type type, std::string_view help) {
  for (std::size_t i = 0; i < groups_.size(); ++i) {
    if (groups_[i].name == name) {
      current_ = i;
      return;
    }
  }
  current_ = groups_.size();
  groups_.push_back({std::string(name), {}});
  std::string& text = out();
  text += "# HELP ";
  text += name;
  text += ' ';
  append_escaped(text, help, false);
  text += "\n# TYPE ";
  text += name;
  text += ' ';
  text += type_name(type);
  text += '\n';
}

void Exposition::begin_sample(std::string_view name, std::initializer_list<Label> labels) {
  std::string& text = out();
  text += name;
  if (labels.size() + common_.size() > 0) {
    text += '{';
    bool first = true;
    auto add = [&](std::string_view key, std::string_view value) {
      if (!first) text += ',';
      first = false;
      text += key;
      text += "=\"";
      append_escaped(text, value, true);
      text += '"';
    };
    for (const auto& [key, value] : common_)
      add(key, value);
    for (const auto& [key, value] : labels)
      add(key, value);
    text += '}';
  }
  text += ' ';
}

void Exposition::sample(std::string_view name, std::initializer_list<Label> labels,
                        std::uint64_t value) {
  begin_sample(name, labels);
  out() += fmt::format("{}\n", value);
}

void Exposition::sample(std::string_view name, std::initializer_list<Label> labels, double value) {
  begin_sample(name, labels);
  std::string& text = out();
  if (std::isnan(value)) {
    text += "NaN\n";
  } else if (std::isinf(value)) {
    text += value > 0 ? "+Inf\n" : "-Inf\n";
  } else {
    text += fmt::format("{}\n", value);
  }
}

void Exposition::counter(std::string_view name, std::string_view help, std::uint64_t value) {
  family(name, Type::Counter, help);
  sample(name, {}, value);
}

void Exposition::gauge(std::string_view name, std::string_view help, double value) {
  family(name, Type::Gauge, help);
  sample(name, {}, value);
}

}  // namespace stampede::metrics
