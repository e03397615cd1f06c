// One reusable SVG chart builder: axes with nice ticks, grid, lines or stacked areas, a legend,
// and hover data for the report's small tooltip script. The output is an inline <svg> element
// for an HTML page: it references nothing outside itself.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stampede::report {

// Escapes text for HTML text and attribute values (& < > " '). C0 control characters other than
// tab, newline and carriage return (invalid in HTML) are dropped. Every string that may come from
// a user (URL, header values, names) goes through this before it reaches the page.
std::string escape_html(std::string_view text);

enum class XScale {
  Linear,
  PercentileNines,  // x values are percentiles 0..100, placed at log10(100 / (100 - p))
};

enum class ChartStyle {
  Lines,         // one polyline per series; non-finite y values break the line
  StackedAreas,  // series stacked bottom-up by point index (they must share their x values);
                 // non-finite y values count as 0
};

struct ChartSeries {
  std::string name;
  std::string color;                              // a CSS colour, e.g. "#2563eb"
  std::vector<std::pair<double, double>> points;  // (x, y), in increasing x order (else sorted)
  bool dashed = false;  // a dashed line (Lines only), e.g. a reference drawn over another series
};

struct ChartSpec {
  std::string label;    // accessible name of the chart (aria-label)
  std::string x_label;  // axis title with its unit, e.g. "time since start (s)"
  std::string y_label;  // e.g. "latency (ms)"
  std::string x_unit;   // unit in tooltips, e.g. "s" (unused with PercentileNines)
  std::string y_unit;   // unit in tooltips, e.g. "ms"
  XScale x_scale = XScale::Linear;
  ChartStyle style = ChartStyle::Lines;
  std::vector<ChartSeries> series;
  int width = 960;  // viewBox size; the page scales the chart to its column
  int height = 320;
};

// An axis' title and the unit its values are in, e.g. {"latency (ms)", "ms"}.
struct AxisTitle {
  std::string label;
  std::string unit;
};

// An empty line chart 280 high (the height of the reports' charts over time and against
// connections), named `label`, with its axes' titles and units.
ChartSpec line_chart(std::string label, AxisTitle x, AxisTitle y);

// Writes one <svg> element. Points with a non-finite x (or, with PercentileNines, a percentile
// outside 0..100) are skipped, as are values beyond +-1e300 (they would overflow the axis
// arithmetic). The y axis always includes 0. A chart without any point says "No data".
void write_svg_chart(const ChartSpec& spec, std::ostream& out);

}  // namespace stampede::report
