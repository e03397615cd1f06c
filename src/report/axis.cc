#include "report/axis.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace stampede::report {
namespace {

// 10^e as a double; exact for |e| <= 22, which covers every step a chart can use in practice.
double pow10(int e) {
  static constexpr std::array<double, 23> kExact = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                                    1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                                    1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  if (e >= 0 && e < static_cast<int>(kExact.size())) return kExact[e];
  return std::pow(10.0, e);
}

// n * 10^e rounded once: dividing by an exact power of ten keeps 0.1, 0.3, 0.6 exact.
double scaled(double n, int e) {
  return e >= 0 ? n * pow10(e) : n / pow10(-e);
}

// q, snapped to the nearest integer when within floating-point noise of it.
double snap(double q) {
  const double r = std::round(q);
  return std::fabs(q - r) <= 1e-9 * std::fmax(1.0, std::fabs(q)) ? r : q;
}

// Groups the digits of a non-negative integer string by thousands: "12345" -> "12,345".
std::string group_thousands(const std::string& digits) {
  std::string out;
  const std::size_t n = digits.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace

double tick_value(const Ticks& ticks, long long k) {
  return scaled(static_cast<double>(k) * ticks.mantissa, ticks.exponent);
}

Ticks nice_ticks(double lo, double hi, int max_intervals, bool extend) {
  Ticks t;
  if (max_intervals < 2) max_intervals = 2;
  const double span = hi - lo;
  if (!(span > 0) || !std::isfinite(span)) {
    t.exponent =
        lo == 0 || !std::isfinite(lo) ? 0 : static_cast<int>(std::floor(std::log10(std::fabs(lo))));
    t.step = scaled(1, t.exponent);
    t.values.push_back(lo);
    return t;
  }
  static constexpr std::array<int, 3> kMantissas = {1, 2, 5};
  int e = static_cast<int>(std::floor(std::log10(span / max_intervals))) - 1;
  // A step >= span always fits (at most 2 intervals), and it is reached within
  // log10(max_intervals) + 2 decades of the first candidate.
  for (int decade = 0; decade < 16; ++decade, ++e) {
    for (int m : kMantissas) {
      const double step = scaled(m, e);
      const double first = snap(lo / step);
      const double last = snap(hi / step);
      const double k0 = extend ? std::floor(first) : std::ceil(first);
      const double k1 = extend ? std::ceil(last) : std::floor(last);
      if (std::ceil(last) - std::floor(first) > max_intervals) continue;
      t.mantissa = m;
      t.exponent = e;
      t.step = step;
      for (double k = k0; k <= k1; k += 1) {
        t.values.push_back(tick_value(t, static_cast<long long>(k)));
      }
      return t;
    }
  }
  t.values = {lo, hi};  // unreachable for finite input; keeps the contract if it ever happens
  t.step = span;
  return t;
}

std::string format_tick(double v, const Ticks& ticks) {
  if (v == 0) return "0";  // never "-0" or "0.0M"
  double largest = 0;
  for (double x : ticks.values)
    largest = std::fmax(largest, std::fabs(x));
  if (largest >= 1e16) return fmt::format("{:.3g}", v);
  int scale = 0;
  const char* suffix = "";
  static constexpr std::array<std::pair<int, const char*>, 4> kSuffixes = {
      {{12, "T"}, {9, "G"}, {6, "M"}, {3, "k"}}};
  if (largest >= 1e4) {
    for (const auto& [s, name] : kSuffixes) {
      if (largest >= pow10(s)) {
        scale = s;
        suffix = name;
        break;
      }
    }
  }
  const int decimals = std::max(0, scale - ticks.exponent);
  return fmt::format("{:.{}f}{}", v / pow10(scale), decimals, suffix);
}

std::string format_number(double v) {
  if (!std::isfinite(v)) return "-";
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e15) return fmt::format("{:.3g}", v);
  if (a >= 10000) {
    const std::string digits = fmt::format("{:.0f}", a);
    std::string out(v < 0 ? "-" : "");
    out += group_thousands(digits);
    return out;
  }
  if (a >= 100) return fmt::format("{:.0f}", v);
  if (a < 1) return fmt::format("{:.3g}", v);
  std::string s = fmt::format("{:.{}f}", v, a >= 10 ? 1 : 2);
  while (s.back() == '0')
    s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

double percentile_to_nines(double p) {
  if (!(p >= 0)) return std::numeric_limits<double>::quiet_NaN();
  if (p >= 100) return std::numeric_limits<double>::infinity();
  return std::log10(100.0 / (100.0 - p));
}

std::string nines_label(int n) {
  if (n <= 0) return "0%";
  if (n == 1) return "90%";
  std::string s = "99";
  if (n > 2) s += '.' + std::string(static_cast<std::size_t>(n - 2), '9');
  return s + "%";
}

std::string percentile_label(double p) {
  std::string s = fmt::format("{:.4f}", p);
  while (!s.empty() && s.back() == '0')
    s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return "p" + s;
}

}  // namespace stampede::report
