#include "report/svg_chart.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include "markup_check.h"
#include "support/text_checks.h"

namespace stampede::report {
namespace {

using testing::check_balanced;
using testing::count;
using Points = std::vector<std::pair<double, double>>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string render(const ChartSpec& spec) {
  std::ostringstream out;
  write_svg_chart(spec, out);
  return out.str();
}

ChartSpec lines(std::vector<ChartSeries> series) {
  ChartSpec spec;
  spec.label = "test";
  spec.x_label = "time since start (s)";
  spec.y_label = "latency (ms)";
  spec.x_unit = "s";
  spec.y_unit = "ms";
  spec.series = std::move(series);
  return spec;
}

// The points of every <polyline class="line...">, in document order.
std::vector<Points> polylines(const std::string& svg) {
  std::vector<Points> out;
  for (const testing::Tag& tag : testing::start_tags(svg)) {
    if (tag.name != "polyline" || tag.attrs.at("class").rfind("line", 0) != 0) continue;
    Points pts;
    std::istringstream in(tag.attrs.at("points"));
    double x = 0;
    double y = 0;
    char comma = 0;
    while (in >> x >> comma >> y)
      pts.emplace_back(x, y);
    out.push_back(pts);
  }
  return out;
}

// Tick label -> its position: x for the x axis (anchor "middle"), y for the y axis ("end").
std::map<std::string, double> tick_positions(const std::string& svg, bool x_axis) {
  std::map<std::string, double> out;
  for (const testing::Tag& tag : testing::start_tags(svg)) {
    if (tag.name != "text" || tag.attrs.count("class") || !tag.attrs.count("text-anchor")) continue;
    if ((tag.attrs.at("text-anchor") == "middle") != x_axis) continue;
    // y-axis labels sit 4 units below their grid line (baseline offset).
    out[tag.text] = x_axis ? std::stod(tag.attrs.at("x")) : std::stod(tag.attrs.at("y")) - 4;
  }
  return out;
}

// The attributes of the first start tag named name (empty if there is none).
std::map<std::string, std::string> first(const std::string& svg, const std::string& name) {
  for (const testing::Tag& tag : testing::start_tags(svg)) {
    if (tag.name == name) return tag.attrs;
  }
  return {};
}

TEST(SvgChart, EveryTagIsClosed) {
  ChartSpec spec = lines({{"p50", "#2563eb", {{0, 1}, {1, 2}, {2, 1.5}}},
                          {"p99", "#ea580c", {{0, 5}, {1, 9}, {2, 7}}}});
  const std::string svg = render(spec);
  EXPECT_EQ(check_balanced(svg), "");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(svg.substr(svg.size() - 6), "</svg>");
  EXPECT_EQ(polylines(svg).size(), 2u);
  spec.style = ChartStyle::StackedAreas;
  EXPECT_EQ(check_balanced(render(spec)), "");
}

TEST(SvgChart, EmptyChartSaysNoData) {
  for (const ChartSpec& spec :
       {lines({}), lines({{"a", "#000", {}}}), lines({{"a", "#000", {{0, kNaN}, {1, kInf}}}})}) {
    const std::string svg = render(spec);
    EXPECT_EQ(check_balanced(svg), "");
    EXPECT_NE(svg.find(">No data</text>"), std::string::npos);
    EXPECT_EQ(svg.find("data-hover"), std::string::npos);
    EXPECT_TRUE(polylines(svg).empty());
  }
}

TEST(SvgChart, SinglePointIsADot) {
  const std::string svg = render(lines({{"a", "#123456", {{0, 5}}}}));
  EXPECT_EQ(check_balanced(svg), "");
  EXPECT_TRUE(polylines(svg).empty());
  EXPECT_EQ(count(svg, "<circle cx="), 1u);
  EXPECT_EQ(svg.find("No data"), std::string::npos);
  // The x axis starts at 0 (no negative time) and the point sits on it.
  const auto xs = tick_positions(svg, true);
  const auto ys = tick_positions(svg, false);
  ASSERT_TRUE(xs.count("0"));
  ASSERT_TRUE(ys.count("5"));
  const auto dot = first(svg, "circle");
  ASSERT_TRUE(dot.count("cx") && dot.count("cy"));
  EXPECT_NEAR(std::stod(dot.at("cx")), xs.at("0"), 0.06);
  EXPECT_NEAR(std::stod(dot.at("cy")), ys.at("5"), 0.06);
}

TEST(SvgChart, AllZerosGiveAFlatLineOnTheAxis) {
  const std::string svg = render(lines({{"errors", "#dc2626", {{0, 0}, {1, 0}, {2, 0}}}}));
  EXPECT_EQ(check_balanced(svg), "");
  const auto ys = tick_positions(svg, false);
  ASSERT_TRUE(ys.count("0"));
  EXPECT_TRUE(ys.count("1.0"));  // an all-zero chart spans 0..1
  const auto pl = polylines(svg);
  ASSERT_EQ(pl.size(), 1u);
  ASSERT_EQ(pl[0].size(), 3u);
  for (const auto& [x, y] : pl[0])
    EXPECT_NEAR(y, ys.at("0"), 0.06);
}

TEST(SvgChart, NonFiniteValuesAreSkippedAndBreakTheLine) {
  const std::string svg = render(lines(
      {{"a",
        "#000",
        {{0, 1}, {1, kNaN}, {2, 2}, {3, 3}, {kInf, 4}, {kNaN, 4}, {4, -kInf}, {5, DBL_MAX}}}}));
  EXPECT_EQ(check_balanced(svg), "");
  const auto pl = polylines(svg);
  ASSERT_EQ(pl.size(), 1u);  // (2,2)-(3,3); (0,1) alone is a dot
  EXPECT_EQ(pl[0].size(), 2u);
  EXPECT_EQ(count(svg, "<circle cx="), 1u);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find("inf"), std::string::npos);
  // Skipped x values do not widen the axis: it ends at the last usable x (5, with a gap).
  EXPECT_TRUE(tick_positions(svg, true).count("5"));
  EXPECT_FALSE(tick_positions(svg, true).count("6"));
}

TEST(SvgChart, HugeValuesGetNiceTicks) {
  const std::string svg = render(lines({{"a", "#000", {{0, 1e12}, {1, 3.7e12}, {2, 2e12}}}}));
  EXPECT_EQ(check_balanced(svg), "");
  const auto ys = tick_positions(svg, false);
  for (const char* label : {"0", "1T", "2T", "3T", "4T"})
    EXPECT_TRUE(ys.count(label)) << label;
  EXPECT_EQ(ys.size(), 5u);
  const auto pl = polylines(svg);
  ASSERT_EQ(pl.size(), 1u);
  EXPECT_NEAR(pl[0][0].second, ys.at("1T"), 0.06);
  // One point far out on both axes still maps to finite coordinates.
  const std::string one = render(lines({{"a", "#000", {{1e300, 1e300}}}}));
  EXPECT_EQ(check_balanced(one), "");
  EXPECT_EQ(count(one, "<circle cx="), 1u);
  EXPECT_EQ(one.find("nan"), std::string::npos);
  EXPECT_EQ(one.find("inf"), std::string::npos);
}

TEST(SvgChart, EscapesEveryText) {
  ChartSpec spec = lines({{"<script>alert('x')</script>", "#000", {{0, 1}, {1, 2}}}});
  spec.x_label = "a & b";
  spec.label = "\"quoted\"";
  const std::string svg = render(spec);
  EXPECT_EQ(check_balanced(svg), "");
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  // The tooltip data (the last part) carries the name JSON-encoded, then attribute-escaped.
  EXPECT_TRUE(stampede::testing::contains_all(
      svg, {">&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;</text>", ">a &amp; b</text>",
            "aria-label=\"&quot;quoted&quot;\"",
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;: 2 ms"}));
}

TEST(SvgChart, PercentileAxisPlacesNines) {
  ChartSpec spec = lines({{"corrected", "#000", {{0, 1}, {90, 2}, {99, 3}, {99.9, 4}, {100, 5}}}});
  spec.x_scale = XScale::PercentileNines;
  const std::string svg = render(spec);
  EXPECT_EQ(check_balanced(svg), "");
  const auto xs = tick_positions(svg, true);
  // The finest finite point is at 3 nines; the 100% point needs one more.
  EXPECT_EQ(xs.size(), 5u);
  for (const char* label : {"0%", "90%", "99%", "99.9%", "99.99%"}) {
    EXPECT_TRUE(xs.count(label)) << label;
  }
  // Ticks are evenly spaced: one nine per step.
  EXPECT_NEAR(xs.at("90%") - xs.at("0%"), xs.at("99.99%") - xs.at("99.9%"), 0.11);
  const auto pl = polylines(svg);
  ASSERT_EQ(pl.size(), 1u);
  ASSERT_EQ(pl[0].size(), 5u);
  EXPECT_NEAR(pl[0][0].first, xs.at("0%"), 0.06);
  EXPECT_NEAR(pl[0][1].first, xs.at("90%"), 0.06);
  EXPECT_NEAR(pl[0][2].first, xs.at("99%"), 0.06);
  EXPECT_NEAR(pl[0][3].first, xs.at("99.9%"), 0.06);
  EXPECT_NEAR(pl[0][4].first, xs.at("99.99%"), 0.06);  // p100 at the right end
  // p50 sits at log10(2) of a nine.
  spec.series[0].points = {{0, 1}, {50, 2}, {99.9, 3}};
  const std::string svg2 = render(spec);
  const auto xs2 = tick_positions(svg2, true);
  EXPECT_EQ(xs2.size(), 4u);  // 0% .. 99.9%: no 100% point, no extra nine
  const auto pl2 = polylines(svg2);
  ASSERT_EQ(pl2.size(), 1u);
  const double nine = xs2.at("90%") - xs2.at("0%");
  EXPECT_NEAR(pl2[0][1].first, xs2.at("0%") + std::log10(2.0) * nine, 0.06);
}

TEST(SvgChart, PercentileAxisShowsAtLeastTwoNines) {
  ChartSpec spec = lines({{"a", "#000", {{0, 1}, {50, 2}, {-1, 3}, {101, 4}}}});
  spec.x_scale = XScale::PercentileNines;
  const std::string svg = render(spec);
  const auto xs = tick_positions(svg, true);
  EXPECT_EQ(xs.size(), 3u);
  EXPECT_TRUE(xs.count("99%"));
  const auto pl = polylines(svg);
  ASSERT_EQ(pl.size(), 1u);
  EXPECT_EQ(pl[0].size(), 2u);  // percentiles outside 0..100 are skipped
}

TEST(SvgChart, StackedAreasAddUp) {
  ChartSpec spec = lines({{"4xx", "#d97706", {{0, 1}, {1, 1}, {2, 1}}},
                          {"5xx", "#dc2626", {{0, 2}, {1, kNaN}, {2, 3}}}});
  spec.style = ChartStyle::StackedAreas;
  const std::string svg = render(spec);
  EXPECT_EQ(check_balanced(svg), "");
  EXPECT_EQ(count(svg, "<polygon class=\"area\""), 2u);
  const auto ys = tick_positions(svg, false);
  const auto pl = polylines(svg);
  ASSERT_EQ(pl.size(), 2u);
  ASSERT_TRUE(ys.count("1") && ys.count("3") && ys.count("4"));
  EXPECT_NEAR(pl[0][0].second, ys.at("1"), 0.06);
  EXPECT_NEAR(pl[1][0].second, ys.at("3"), 0.06);
  EXPECT_NEAR(pl[1][1].second, ys.at("1"), 0.06);  // NaN stacks as 0
  EXPECT_NEAR(pl[1][2].second, ys.at("4"), 0.06);
}

TEST(SvgChart, StackedBandEdgesOnlyWhereTheBandIsThick) {
  ChartSpec spec = lines({{"5xx", "#dc2626", {{0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 1}}},
                          {"transport", "#7c3aed", {{0, 0}, {1, 0}, {2, 5}, {3, 0}, {4, 0}}},
                          {"never", "#000", {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}}}});
  spec.style = ChartStyle::StackedAreas;
  const std::string svg = render(spec);
  EXPECT_EQ(check_balanced(svg), "");
  EXPECT_EQ(count(svg, "<polygon class=\"area\""), 3u);
  const auto pl = polylines(svg);
  ASSERT_EQ(pl.size(), 2u);  // "never" has no edge at all
  EXPECT_EQ(pl[0].size(), 5u);
  ASSERT_EQ(pl[1].size(), 3u);  // from x=1 up to the peak at x=2 and down to x=3
  EXPECT_EQ(pl[1][0].first, pl[0][1].first);
  EXPECT_EQ(pl[1][2].first, pl[0][3].first);
}

TEST(SvgChart, HoverDataHasOneEntryPerX) {
  const std::string svg = render(lines({{"sent", "#000", {{0, 2000}, {1, 2000}, {2, 1000}}},
                                        {"completed", "#111", {{0, 1998}, {1, kNaN}, {2, 999}}}}));
  const auto attrs = first(svg, "svg");
  ASSERT_TRUE(attrs.count("data-hover"));
  const std::string hover = attrs.at("data-hover");
  EXPECT_NE(hover.find("&quot;0 s\\nsent: 2000 ms\\ncompleted: 1998 ms&quot;"), std::string::npos);
  EXPECT_NE(hover.find("&quot;1 s\\nsent: 2000 ms\\ncompleted: -&quot;"), std::string::npos);
  EXPECT_EQ(count(hover, ",null]"), 1u);  // no dot for the gap
  EXPECT_EQ(count(hover, "s\\nsent"), 3u);
}

}  // namespace
}  // namespace stampede::report
