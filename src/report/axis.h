// Axis arithmetic for the report's charts: "nice" 1-2-5 ticks, the log percentile axis, and
// number formatting for tick labels and tooltips. Pure functions, no I/O.
#pragma once

#include <string>
#include <vector>

namespace stampede::report {

// Tick positions on a linear axis: values[i] = first + i * step, exactly as decimal numbers
// (step = mantissa * 10^exponent with mantissa in {1, 2, 5}).
struct Ticks {
  int mantissa = 1;
  int exponent = 0;
  double step = 1;
  std::vector<double> values;
};

// Nice ticks for the data range [lo, hi] (lo <= hi, both finite): the smallest 1-2-5 step that
// needs at most max_intervals intervals (values below 2 count as 2). When extend is true the ticks
// run from floor(lo / step) to ceil(hi / step) (the axis should then span values.front() ..
// values.back()); otherwise only the ticks inside [lo, hi] are listed. lo == hi gives one tick.
Ticks nice_ticks(double lo, double hi, int max_intervals, bool extend);

// step * k as the nearest double to the decimal value (e.g. 3 * 0.1 gives exactly 0.3).
double tick_value(const Ticks& ticks, long long k);

// A tick label for value v on an axis with the given ticks: as many decimals as the step needs,
// and a k / M / G / T suffix when the largest tick reaches 10,000 (e.g. "0", "0.25", "2500",
// "20k", "1.5M").
std::string format_tick(double v, const Ticks& ticks);

// A value for a tooltip or a table: about 3 significant digits without trailing zeros, thousands
// separators from 10,000 (e.g. "0.0123", "1.5", "12.3", "123", "1234", "12,345"); "-" when v is
// not finite.
std::string format_number(double v);

// The log percentile axis of HdrHistogram plots: x = log10(100 / (100 - p)), the number of
// "nines" (0 -> 0, 90 -> 1, 99 -> 2, 99.9 -> 3). p >= 100 gives +infinity; p < 0 gives NaN.
double percentile_to_nines(double p);

// The label of the tick at n nines (n >= 0): "0%", "90%", "99%", "99.9%", "99.99%", ...
std::string nines_label(int n);

// A percentile for a tooltip, e.g. "p50", "p99.9", "p99.999", "p100".
std::string percentile_label(double p);

}  // namespace stampede::report
