#include "core/units.h"

#include <charconv>
#include <cmath>
#include <string>

namespace stampede {
namespace {

Expected<double> parse_plain_number(std::string_view text, std::string_view what) {
  if (text.empty()) return make_error(std::string("empty ") + std::string(what));
  double value = 0;
  auto [ptr, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value)) {
    return make_error("not a number: '" + std::string(text) + "'");
  }
  if (value < 0 || text.front() == '-') {
    return make_error("must not be negative: '" + std::string(text) + "'");
  }
  return value;
}

Expected<std::uint64_t> parse_scaled(std::string_view text, std::uint64_t base) {
  std::string_view digits = text;
  double scale = 1;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'k':
      case 'K':
        scale = static_cast<double>(base);
        break;
      case 'm':
      case 'M':
        scale = static_cast<double>(base * base);
        break;
      case 'g':
      case 'G':
        scale = static_cast<double>(base * base * base);
        break;
      default:
        break;
    }
    if (scale != 1) digits.remove_suffix(1);
  }
  auto number = parse_plain_number(digits, "number");
  if (!number)
    return make_error(number.error().message.find("negative") != std::string::npos
                          ? number.error().message
                          : "not a number: '" + std::string(text) + "'");
  double value = *number * scale;
  if (value >= 1.8e19) return make_error("number too large: '" + std::string(text) + "'");
  if (value != std::floor(value))
    return make_error("not a whole number: '" + std::string(text) + "'");
  return static_cast<std::uint64_t>(value);
}

}  // namespace

Expected<std::uint64_t> parse_count(std::string_view text) {
  return parse_scaled(text, 1000);
}

Expected<std::uint64_t> parse_size(std::string_view text) {
  return parse_scaled(text, 1024);
}

Expected<double> parse_number(std::string_view text) {
  return parse_plain_number(text, "number");
}

Expected<std::chrono::nanoseconds> parse_duration(std::string_view text,
                                                  std::chrono::nanoseconds bare_unit) {
  struct Suffix {
    std::string_view name;
    double ns;
  };
  static constexpr Suffix kSuffixes[] = {{"ns", 1},  {"us", 1e3}, {"ms", 1e6},
                                         {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}};
  std::string_view digits = text;
  double unit = static_cast<double>(bare_unit.count());
  for (const auto& s : kSuffixes) {
    if (digits.size() > s.name.size() && digits.ends_with(s.name)) {
      // "ms" must not be read as "m" + "s": the table lists longer suffixes first.
      char before = digits[digits.size() - s.name.size() - 1];
      if (s.name.size() == 1 && (before == 'm' || before == 'u' || before == 'n')) continue;
      digits.remove_suffix(s.name.size());
      unit = s.ns;
      break;
    }
  }
  auto number = parse_plain_number(digits, "duration");
  if (!number) return make_error("not a duration: '" + std::string(text) + "'");
  double ns = *number * unit;
  if (ns > 9.2e18) return make_error("duration too long: '" + std::string(text) + "'");
  return std::chrono::nanoseconds(static_cast<std::int64_t>(ns));
}

}  // namespace stampede
