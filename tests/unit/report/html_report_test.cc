#include "report/html_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

#include "markup_check.h"

namespace stampede::report {
namespace {

using testing::check_balanced;
using testing::count;
using testing::svg_elements;

constexpr const char* kEvilUrl = "http://127.0.0.1:8080/a?q=<script>alert(1)</script>&x='\"";
constexpr const char* kEvilUrlEscaped =
    "http://127.0.0.1:8080/a?q=&lt;script&gt;alert(1)&lt;/script&gt;&amp;x=&#39;&quot;";

std::string render(const ReportData& d) {
  std::ostringstream out;
  write_html(d, out);
  return out.str();
}

ReportData full_data() {
  ReportData d;
  d.title = "stampede load test";
  d.subtitle = std::string("GET ") + kEvilUrl;
  d.summary = {{"URL", kEvilUrl}, {"Requests", "1,000"}, {"x-header <b>", "v & w"}};
  d.latency = {{"corrected", {{0, 1}, {50, 2}, {90, 3}, {99, 8}, {99.9, 20}, {100, 25}}},
               {"uncorrected", {{0, 1}, {50, 1.5}, {90, 2}, {99, 4}, {100, 9}}}};
  for (int t = 0; t < 10; ++t) {
    TimePoint p;
    p.t_s = t;
    p.sent_rps = 100;
    p.completed_rps = 99 + t % 2;
    p.errors_5xx = t == 5 ? 3 : 0;
    p.p50_ms = 2;
    p.p99_ms = t == 5 ? 20 : 8;
    d.timeline.push_back(p);
  }
  d.tables = {
      {"Status codes", {"status", "count"}, {{"200", "990"}, {"503", "10"}, {kEvilUrl, "x"}}}};
  d.findings = {std::string("threshold failed for ") + kEvilUrl};
  return d;
}

TEST(HtmlReport, IsWellFormed) {
  const std::string html = render(full_data());
  EXPECT_EQ(check_balanced(html), "");
  EXPECT_EQ(html.rfind("<!doctype html>", 0), 0u);
  const auto svgs = svg_elements(html);
  EXPECT_EQ(svgs.size(), 4u);  // latency distribution, throughput, latency, errors
  for (const std::string& svg : svgs)
    EXPECT_EQ(check_balanced(svg), "") << svg;
}

TEST(HtmlReport, LoadsNothingFromOutside) {
  const std::string html = render(full_data());
  const std::size_t svgs = svg_elements(html).size();
  const std::size_t xmlns = count(html, "xmlns=\"http://www.w3.org/2000/svg\"");
  EXPECT_EQ(xmlns, svgs);
  const std::size_t user_urls = count(html, kEvilUrlEscaped);
  EXPECT_EQ(user_urls, 4u);  // subtitle, summary, table and finding
  EXPECT_EQ(count(html, "http://"), xmlns + user_urls);
  EXPECT_EQ(count(html, "https://"), 0u);
  for (const char* ref : {"src=", "href=", "url(", "@import", "<link", "<iframe", "<img"}) {
    EXPECT_EQ(html.find(ref), std::string::npos) << ref;
  }
}

TEST(HtmlReport, EscapesUserText) {
  const std::string html = render(full_data());
  // Exactly one script element, ours, and the user's markup only as text.
  EXPECT_EQ(count(html, "<script"), 1u);
  EXPECT_EQ(count(html, "</script>"), 1u);
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_NE(html.find("<th scope=\"row\">x-header &lt;b&gt;</th><td>v &amp; w</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<li>threshold failed for " + std::string(kEvilUrlEscaped) + "</li>"),
            std::string::npos);
}

TEST(HtmlReport, EmptyReportSaysThereIsNoData) {
  const std::string html = render(ReportData{});
  EXPECT_EQ(check_balanced(html), "");
  EXPECT_NE(html.find("No data"), std::string::npos);
  EXPECT_NE(html.find("<title>stampede report</title>"), std::string::npos);
  EXPECT_TRUE(svg_elements(html).empty());
}

TEST(HtmlReport, EmptySeriesAndOnePointStillRender) {
  ReportData d;
  d.latency = {{"corrected", {}}};
  TimePoint p;
  p.t_s = 0;
  p.p50_ms = std::numeric_limits<double>::quiet_NaN();
  p.p99_ms = std::numeric_limits<double>::quiet_NaN();
  d.timeline = {p};
  const std::string html = render(d);
  EXPECT_EQ(check_balanced(html), "");
  const auto svgs = svg_elements(html);
  ASSERT_EQ(svgs.size(), 4u);
  EXPECT_NE(svgs[0].find(">No data</text>"), std::string::npos);  // no latency points
  EXPECT_EQ(svgs[1].find(">No data</text>"), std::string::npos);  // sent = completed = 0
  EXPECT_NE(svgs[2].find(">No data</text>"), std::string::npos);  // p50, p99 are gaps
  EXPECT_EQ(html.find("nan"), std::string::npos);
}

TEST(HtmlReport, LongSummaryUsesTwoColumnPairs) {
  ReportData d;
  for (int i = 0; i < 7; ++i)
    d.summary.push_back({"k" + std::to_string(i), std::to_string(i)});
  const std::string html = render(d);
  EXPECT_EQ(check_balanced(html), "");
  EXPECT_EQ(count(html, "<tr>"), 4u);
  EXPECT_NE(html.find("<th scope=\"row\">k0</th><td>0</td><th scope=\"row\">k4</th><td>4</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<th scope=\"row\">k3</th><td>3</td><th scope=\"row\"></th><td></td>"),
            std::string::npos);
  d.summary.resize(3);
  EXPECT_EQ(count(render(d), "<tr>"), 3u);
}

TEST(HtmlReport, NumericColumnsAreRightAligned) {
  ReportData d;
  d.tables = {{"", {}, {{"p99", "12.5 ms", "-3", "200 OK"}, {"p50", "", "+4", "transport"}}}};
  const std::string html = render(d);
  EXPECT_EQ(check_balanced(html), "");
  EXPECT_NE(html.find("<td>p99</td><td class=\"num\">12.5 ms</td><td class=\"num\">-3</td>"
                      "<td>200 OK</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<td>p50</td><td class=\"num\"></td><td class=\"num\">+4</td>"
                      "<td>transport</td>"),
            std::string::npos);
  EXPECT_EQ(html.find("<thead>"), std::string::npos);
  d.tables[0].header = {"name", "value", "delta", "status"};
  EXPECT_NE(render(d).find("<th>name</th><th class=\"num\">value</th><th class=\"num\">delta</th>"
                           "<th>status</th>"),
            std::string::npos);
}

TEST(HtmlReport, WritesFiles) {
  const std::string path = ::testing::TempDir() + "/stampede_report_test.html";
  const ReportData d = full_data();
  ASSERT_TRUE(write_html_file(d, path).ok());
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  EXPECT_EQ(content.str(), render(d));
  std::remove(path.c_str());

  const auto bad = write_html_file(d, "/nonexistent-dir/x/report.html");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("cannot write /nonexistent-dir/x/report.html: ", 0), 0u);
}

}  // namespace
}  // namespace stampede::report
