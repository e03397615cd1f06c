#include "metrics/exposition.h"

#include <cmath>

#include <fmt/format.h>

namespace stampede::metrics {
namespace {

std::string_view type_name(Exposition::Type type) {
  switch (type) {
    case Exposition::Type::Counter:
      return "counter";
    case Exposition::Type::Gauge:
      return "gauge";
    case Exposition::Type::Histogram:
      return "histogram";
    case Exposition::Type::Summary:
      return "summary";
  }
  return "untyped";
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

void Exposition::family(std::string_view name, Type type, std::string_view help) {
  out_ += "# HELP ";
  out_ += name;
  out_ += ' ';
  append_escaped(out_, help, false);
  out_ += "\n# TYPE ";
  out_ += name;
  out_ += ' ';
  out_ += type_name(type);
  out_ += '\n';
}

void Exposition::begin_sample(std::string_view name, std::initializer_list<Label> labels) {
  out_ += name;
  if (labels.size() > 0) {
    out_ += '{';
    bool first = true;
    for (const auto& [key, value] : labels) {
      if (!first) out_ += ',';
      first = false;
      out_ += key;
      out_ += "=\"";
      append_escaped(out_, value, true);
      out_ += '"';
    }
    out_ += '}';
  }
  out_ += ' ';
}

void Exposition::sample(std::string_view name, std::initializer_list<Label> labels,
                        std::uint64_t value) {
  begin_sample(name, labels);
  out_ += fmt::format("{}\n", value);
}

void Exposition::sample(std::string_view name, std::initializer_list<Label> labels, double value) {
  begin_sample(name, labels);
  if (std::isnan(value)) {
    out_ += "NaN\n";
  } else if (std::isinf(value)) {
    out_ += value > 0 ? "+Inf\n" : "-Inf\n";
  } else {
    out_ += fmt::format("{}\n", value);
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
