#include "report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>

#include "report/axis.h"

namespace stampede::report {
namespace {

constexpr double kMarginLeft = 68;
constexpr double kMarginRight = 40;  // room for half of the last x label
constexpr double kMarginTop = 36;
constexpr double kMarginBottom = 50;
constexpr double kMaxMagnitude = 1e300;  // beyond this, spans and ticks could overflow
constexpr int kMinNines = 2;             // the percentile axis shows at least 0% .. 99%
constexpr int kMaxNines = 6;             // and at most 0% .. 99.9999%
constexpr int kXIntervals = 8;
constexpr int kYIntervals = 6;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A point in axis coordinates (x in nines for the percentile axis; y stacked for areas) with the
// raw values kept for tooltips. y is NaN for a gap.
struct DataPoint {
  double x;
  double y;
  double raw_x;
  double raw_y;
};

struct Prepared {
  const ChartSeries* source;
  std::vector<DataPoint> points;
};

struct Axis {
  double lo = 0;
  double hi = 1;
  std::vector<std::pair<double, std::string>> ticks;  // (axis value, label)
};

// Where the plot sits in the viewBox and how values map to it.
struct Frame {
  double left, top, width, height;
  Axis x, y;
  double px(double v) const { return left + (v - x.lo) / (x.hi - x.lo) * width; }
  double py(double v) const { return top + height - (v - y.lo) / (y.hi - y.lo) * height; }
  double bottom() const { return top + height; }
  double right() const { return left + width; }
};

bool usable(double v) {
  return std::isfinite(v) && std::fabs(v) <= kMaxMagnitude;
}

std::vector<Prepared> prepare(const ChartSpec& spec) {
  std::vector<Prepared> out;
  std::vector<double> stack;  // running totals by point index, for StackedAreas
  const bool nines = spec.x_scale == XScale::PercentileNines;
  const bool stacked = spec.style == ChartStyle::StackedAreas;
  for (const ChartSeries& s : spec.series) {
    Prepared p{&s, {}};
    std::size_t index = 0;
    for (const auto& [x, y] : s.points) {
      if (!usable(x) || (nines && (x < 0 || x > 100))) continue;
      const double raw_y = usable(y) ? y : kNaN;
      double plotted = raw_y;
      if (stacked) {
        if (stack.size() <= index) stack.push_back(0);
        stack[index] += std::isnan(raw_y) ? 0 : raw_y;
        plotted = stack[index];
      }
      p.points.push_back({nines ? percentile_to_nines(x) : x, plotted, x, raw_y});
      ++index;
    }
    // The contract asks for increasing x; sorting keeps the tooltip search valid if it is not.
    auto by_x = [](const DataPoint& a, const DataPoint& b) { return a.x < b.x; };
    if (!std::is_sorted(p.points.begin(), p.points.end(), by_x)) {
      std::stable_sort(p.points.begin(), p.points.end(), by_x);
    }
    out.push_back(std::move(p));
  }
  return out;
}

// The percentile axis spans whole nines: enough for the finest finite percentile, one more when
// a 100% point (drawn at the right end) follows it. Clamps x of the 100% points to the end.
Axis nines_axis(std::vector<Prepared>& series) {
  double finest = 0;
  bool has_max = false;
  for (const Prepared& s : series) {
    for (const DataPoint& p : s.points) {
      if (std::isinf(p.x)) {
        has_max = true;
      } else {
        finest = std::max(finest, p.x);
      }
    }
  }
  int n = has_max ? static_cast<int>(std::floor(finest)) + 1
                  : static_cast<int>(std::ceil(finest - 1e-9));
  n = std::clamp(n, kMinNines, kMaxNines);
  for (Prepared& s : series) {
    for (DataPoint& p : s.points)
      p.x = std::min(p.x, static_cast<double>(n));
  }
  Axis axis{0, static_cast<double>(n), {}};
  for (int i = 0; i <= n; ++i)
    axis.ticks.emplace_back(i, nines_label(i));
  return axis;
}

Axis linear_x_axis(const std::vector<Prepared>& series) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const Prepared& s : series) {
    for (const DataPoint& p : s.points) {
      lo = std::min(lo, p.x);
      hi = std::max(hi, p.x);
    }
  }
  if (lo > hi) {
    lo = 0;
    hi = 1;
  } else if (lo == hi) {
    // One x value: centre it, but do not invent negative times for a point at 0. The margin
    // grows with the value so that it is not lost to rounding at large magnitudes.
    const double margin = std::max(1.0, std::fabs(lo) * 0.01);
    lo = lo >= 0 ? std::max(0.0, lo - margin) : lo - margin;
    hi = hi + margin;
  }
  const Ticks t = nice_ticks(lo, hi, kXIntervals, false);
  Axis axis{lo, hi, {}};
  for (double v : t.values)
    axis.ticks.emplace_back(v, format_tick(v, t));
  return axis;
}

Axis y_axis(const std::vector<Prepared>& series) {
  double lo = 0;
  double hi = 0;
  for (const Prepared& s : series) {
    for (const DataPoint& p : s.points) {
      if (std::isnan(p.y)) continue;
      lo = std::min(lo, p.y);
      hi = std::max(hi, p.y);
    }
  }
  if (lo == hi) hi = lo + 1;
  const Ticks t = nice_ticks(lo, hi, kYIntervals, true);
  Axis axis{t.values.front(), t.values.back(), {}};
  for (double v : t.values)
    axis.ticks.emplace_back(v, format_tick(v, t));
  return axis;
}

using Buffer = fmt::memory_buffer;

void write_axes(Buffer& b, const Frame& f, const ChartSpec& spec) {
  auto out = std::back_inserter(b);
  fmt::format_to(out, "<g class=\"grid\">");
  for (const auto& [v, label] : f.y.ticks) {
    fmt::format_to(out, "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>", f.left,
                   f.py(v), f.right(), f.py(v));
  }
  for (const auto& [v, label] : f.x.ticks) {
    fmt::format_to(out, "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>", f.px(v),
                   f.top, f.px(v), f.bottom());
  }
  fmt::format_to(out, "</g><g class=\"axis\">");
  fmt::format_to(out, "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>", f.left,
                 f.bottom(), f.right(), f.bottom());
  for (const auto& [v, label] : f.y.ticks) {
    fmt::format_to(out, "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>", f.left - 8,
                   f.py(v) + 4, escape_html(label));
  }
  for (const auto& [v, label] : f.x.ticks) {
    fmt::format_to(out, "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\"/>",
                   f.px(v), f.bottom(), f.bottom() + 5);
    fmt::format_to(out, "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", f.px(v),
                   f.bottom() + 19, escape_html(label));
  }
  fmt::format_to(out, "</g>");
  fmt::format_to(out,
                 "<text class=\"axis-title\" x=\"{:.1f}\" y=\"{:.1f}\" "
                 "text-anchor=\"middle\">{}</text>",
                 f.left + f.width / 2, f.bottom() + 42, escape_html(spec.x_label));
  const double cy = f.top + f.height / 2;
  fmt::format_to(out,
                 "<text class=\"axis-title\" x=\"16\" y=\"{0:.1f}\" text-anchor=\"middle\" "
                 "transform=\"rotate(-90 16 {0:.1f})\">{1}</text>",
                 cy, escape_html(spec.y_label));
}

// escaped_color: already passed through escape_html.
void write_dot(Buffer& b, double x, double y, const std::string& escaped_color) {
  fmt::format_to(std::back_inserter(b), "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>",
                 x, y, escaped_color);
}

// One polyline per run of points with a y value; a run of one point is a dot.
void write_lines(Buffer& b, const Frame& f, const Prepared& s) {
  const std::string color = escape_html(s.source->color);
  std::size_t i = 0;
  while (i < s.points.size()) {
    while (i < s.points.size() && std::isnan(s.points[i].y))
      ++i;
    const std::size_t start = i;
    while (i < s.points.size() && !std::isnan(s.points[i].y))
      ++i;
    if (i - start == 1) write_dot(b, f.px(s.points[start].x), f.py(s.points[start].y), color);
    if (i - start < 2) continue;
    fmt::format_to(std::back_inserter(b), "<polyline class=\"line{}\" stroke=\"{}\" points=\"",
                   s.source->dashed ? " dashed" : "", color);
    for (std::size_t k = start; k < i; ++k) {
      fmt::format_to(std::back_inserter(b), "{}{:.1f},{:.1f}", k == start ? "" : " ",
                     f.px(s.points[k].x), f.py(s.points[k].y));
    }
    fmt::format_to(std::back_inserter(b), "\"/>");
  }
}

// The top edge of a stacked band, only where the band has a thickness: where it is 0 the edge
// lies on the band below, and drawing it would hide that band's colour.
void write_band_edges(Buffer& b, const Frame& f, const Prepared& s, const std::string& color) {
  const auto& pts = s.points;
  auto thick = [&pts](std::size_t k) { return pts[k].raw_y > 0 || pts[k].raw_y < 0; };
  auto out = std::back_inserter(b);
  std::size_t k = 0;
  while (k + 1 < pts.size()) {
    if (!thick(k) && !thick(k + 1)) {
      ++k;
      continue;
    }
    fmt::format_to(out, "<polyline class=\"line thin\" stroke=\"{}\" points=\"{:.1f},{:.1f}", color,
                   f.px(pts[k].x), f.py(pts[k].y));
    for (++k; k < pts.size() && (thick(k - 1) || thick(k)); ++k) {
      fmt::format_to(out, " {:.1f},{:.1f}", f.px(pts[k].x), f.py(pts[k].y));
    }
    fmt::format_to(out, "\"/>");
    --k;  // the run's last point may start the next run
  }
}

// The band between this series' stacked top and the one below it (the x axis for the first).
void write_area(Buffer& b, const Frame& f, const Prepared& s, const Prepared* below) {
  const std::string color = escape_html(s.source->color);
  const auto& pts = s.points;
  if (pts.size() == 1) write_dot(b, f.px(pts[0].x), f.py(pts[0].y), color);
  if (pts.size() < 2) return;
  auto out = std::back_inserter(b);
  fmt::format_to(out, "<polygon class=\"area\" fill=\"{}\" points=\"", color);
  for (const DataPoint& p : pts)
    fmt::format_to(out, "{:.1f},{:.1f} ", f.px(p.x), f.py(p.y));
  for (std::size_t k = pts.size(); k-- > 0;) {
    const bool has_below = below != nullptr && k < below->points.size();
    const double base = has_below ? below->points[k].y : std::max(f.y.lo, 0.0);
    fmt::format_to(out, "{:.1f},{:.1f}{}", f.px(pts[k].x), f.py(base), k == 0 ? "" : " ");
  }
  fmt::format_to(out, "\"/>");
  write_band_edges(b, f, s, color);
}

// Display width of text in the legend's 12px font, roughly: UTF-8 code points times 7px.
double text_width(const std::string& s) {
  const auto chars = std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
  return static_cast<double>(chars) * 7.0;
}

void write_legend(Buffer& b, const Frame& f, const ChartSpec& spec) {
  auto out = std::back_inserter(b);
  fmt::format_to(out, "<g class=\"legend\">");
  double x = f.left;
  const double y = f.top - 16;
  for (const ChartSeries& s : spec.series) {
    const std::string color = escape_html(s.color);
    if (spec.style == ChartStyle::StackedAreas) {
      fmt::format_to(out,
                     "<rect class=\"area\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"16\" height=\"10\" "
                     "fill=\"{}\" stroke=\"{}\"/>",
                     x, y - 5, color, color);
    } else {
      fmt::format_to(
          out,
          "<line class=\"line{}\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
          "stroke=\"{}\"/>",
          s.dashed ? " dashed" : "", x, y, x + 16, y, color);
    }
    fmt::format_to(out, "<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>", x + 22, y + 4,
                   escape_html(s.name));
    x += 22 + text_width(s.name) + 22;
  }
  fmt::format_to(out, "</g>");
}

}  // namespace

namespace {

double round1(double v) {
  return std::round(v * 10) / 10;
}

// The point of s nearest to axis value x (points are in increasing x order), or nullptr.
const DataPoint* nearest(const Prepared& s, double x) {
  const auto& pts = s.points;
  if (pts.empty()) return nullptr;
  auto it = std::lower_bound(pts.begin(), pts.end(), x,
                             [](const DataPoint& p, double v) { return p.x < v; });
  if (it == pts.end()) return &pts.back();
  if (it != pts.begin() && x - std::prev(it)->x < it->x - x) --it;
  return &*it;
}

std::string hover_header(const ChartSpec& spec, double raw_x) {
  if (spec.x_scale == XScale::PercentileNines) return percentile_label(raw_x);
  return spec.x_unit.empty() ? format_number(raw_x) : format_number(raw_x) + " " + spec.x_unit;
}

// Tooltip data for the page script: for each hover position (at most one per pixel column),
// the cursor's x, each series' dot y (null for none) and the tooltip text.
std::string hover_json(const Frame& f, const std::vector<Prepared>& series, const ChartSpec& spec) {
  std::vector<std::pair<double, double>> xs;  // (pixel x, raw x)
  for (const Prepared& s : series) {
    for (const DataPoint& p : s.points)
      xs.emplace_back(round1(f.px(p.x)), p.raw_x);
  }
  std::sort(xs.begin(), xs.end());
  xs.erase(
      std::unique(xs.begin(), xs.end(),
                  [](const auto& a, const auto& b) { return std::fabs(a.first - b.first) < 1; }),
      xs.end());
  nlohmann::json j = {{"x", nlohmann::json::array()},
                      {"y", nlohmann::json::array()},
                      {"t", nlohmann::json::array()}};
  for (const auto& [px, raw_x] : xs) {
    const double axis_x = f.x.lo + (px - f.left) / f.width * (f.x.hi - f.x.lo);
    nlohmann::json ys = nlohmann::json::array();
    std::string text = hover_header(spec, raw_x);
    for (const Prepared& s : series) {
      const DataPoint* p = nearest(s, axis_x);
      if (p == nullptr || std::isnan(p->y)) {
        ys.push_back(nullptr);
      } else {
        ys.push_back(round1(f.py(p->y)));
      }
      if (p == nullptr) continue;
      text += "\n" + s.source->name + ": " + format_number(p->raw_y);
      if (!spec.y_unit.empty() && !std::isnan(p->raw_y)) text += " " + spec.y_unit;
    }
    j["x"].push_back(px);
    j["y"].push_back(std::move(ys));
    j["t"].push_back(std::move(text));
  }
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void write_cursor(Buffer& b, const Frame& f, const ChartSpec& spec) {
  auto out = std::back_inserter(b);
  fmt::format_to(out, "<g class=\"hover\" visibility=\"hidden\">");
  fmt::format_to(out, "<line class=\"cursor\" x1=\"0\" y1=\"{:.1f}\" x2=\"0\" y2=\"{:.1f}\"/>",
                 f.top, f.bottom());
  for (const ChartSeries& s : spec.series) {
    fmt::format_to(out, "<circle class=\"dot\" r=\"4\" fill=\"{}\"/>", escape_html(s.color));
  }
  fmt::format_to(out, "</g>");
}

bool has_values(const std::vector<Prepared>& series) {
  return std::any_of(series.begin(), series.end(), [](const Prepared& s) {
    return std::any_of(s.points.begin(), s.points.end(),
                       [](const DataPoint& p) { return !std::isnan(p.y); });
  });
}

}  // namespace

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') break;
        out += c;
    }
  }
  return out;
}

void write_svg_chart(const ChartSpec& spec, std::ostream& out) {
  std::vector<Prepared> series = prepare(spec);
  const double width = std::max(spec.width, 240);
  const double height = std::max(spec.height, 160);
  Frame f{kMarginLeft,
          kMarginTop,
          width - kMarginLeft - kMarginRight,
          height - kMarginTop - kMarginBottom,
          {},
          {}};
  f.x = spec.x_scale == XScale::PercentileNines ? nines_axis(series) : linear_x_axis(series);
  f.y = y_axis(series);
  const bool any = has_values(series);

  Buffer b;
  auto it = std::back_inserter(b);
  fmt::format_to(it,
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" "
                 "viewBox=\"0 0 {:.0f} {:.0f}\" role=\"img\" aria-label=\"{}\"",
                 width, height, escape_html(spec.label));
  if (any) fmt::format_to(it, " data-hover=\"{}\"", escape_html(hover_json(f, series, spec)));
  fmt::format_to(it, ">");
  write_axes(b, f, spec);
  fmt::format_to(it, "<g class=\"series\">");
  for (std::size_t i = 0; i < series.size(); ++i) {
    if (spec.style == ChartStyle::StackedAreas) {
      write_area(b, f, series[i], i == 0 ? nullptr : &series[i - 1]);
    } else {
      write_lines(b, f, series[i]);
    }
  }
  fmt::format_to(it, "</g>");
  write_legend(b, f, spec);
  if (any) {
    write_cursor(b, f, spec);
  } else {
    fmt::format_to(it,
                   "<text class=\"nodata\" x=\"{:.1f}\" y=\"{:.1f}\" "
                   "text-anchor=\"middle\">No data</text>",
                   f.left + f.width / 2, f.top + f.height / 2);
  }
  fmt::format_to(it, "</svg>");
  out.write(b.data(), static_cast<std::streamsize>(b.size()));
}

ChartSpec line_chart(std::string label, AxisTitle x, AxisTitle y) {
  ChartSpec spec;
  spec.label = std::move(label);
  spec.x_label = std::move(x.label);
  spec.x_unit = std::move(x.unit);
  spec.y_label = std::move(y.label);
  spec.y_unit = std::move(y.unit);
  spec.height = 280;
  return spec;
}

}  // namespace stampede::report
