// A RunResult mapped onto the HTML report's data, and the page written to a file.
#include "loadgen/report/html.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/units.h"
#include "report/axis.h"
#include "sample_runs.h"
#include "stats/timeline.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace stampede::loadgen {
namespace {

RunResult paced_run() {
  RunResult r = samples::finished_run(4, 100, 2, 2'000'000'000);
  r.error_codes = {{"503", 2}};
  RateResult& rate = samples::pace(r, 50, 100, 2'000'000'000);
  for (int i = 1; i <= 100; ++i) {
    r.latency.record(i * 1'000'000LL);
    rate.uncorrected.record(500'000);
    rate.lag.record(10'000);
  }
  r.timeline.push_back({0, 1, 50, 48, 0, 2, 0, 3'000'000, 9'000'000, 1, true});
  r.timeline.push_back({1, 1, 50, 49, 0, 0, 1, 4'000'000, 8'000'000, 1, true});
  // The last row, 2 s wide: the run ended 0.5 s into it, and nothing ended in it.
  r.timeline.push_back({2, 2, 1, 0, 0, 0, 0, 0, 0, 0.5, false});
  return r;
}

TEST(HtmlReport, CorrectedAndUncorrectedSeries) {
  const report::ReportData d = to_report_data(paced_run());
  ASSERT_EQ(d.latency.size(), 2u);
  EXPECT_EQ(d.latency[0].name, "corrected");
  EXPECT_EQ(d.latency[1].name, "uncorrected");
  EXPECT_EQ(d.latency[0].points.front().first, 0);
  EXPECT_EQ(d.latency[0].points.back(), std::make_pair(100.0, 100.0));  // the max, in ms
  EXPECT_EQ(d.latency[1].points.back().second, 0.5);
  EXPECT_NE(d.subtitle.find("50 req/s"), std::string::npos) << d.subtitle;
  EXPECT_TRUE(d.findings.empty());
  ASSERT_EQ(d.tables.size(), 1u);
  EXPECT_EQ(d.tables[0].rows[0][0], "503");
}

TEST(HtmlReport, LocalErrorsHaveATableOfTheirOwn) {
  RunResult r = paced_run();
  r.local_errors = {{"EMFILE", 3}};
  const report::ReportData d = to_report_data(r);
  ASSERT_EQ(d.tables.size(), 2u);
  EXPECT_EQ(d.tables[0].rows.size(), 1u);
  EXPECT_EQ(d.tables[0].rows[0][0], "503");
  EXPECT_EQ(d.tables[1].title, "Local errors (this machine's limits, not the server's)");
  ASSERT_EQ(d.tables[1].rows.size(), 1u);
  EXPECT_EQ(d.tables[1].rows[0][0], "EMFILE");
  EXPECT_EQ(d.tables[1].rows[0][1], "3");
}

TEST(HtmlReport, TimelineAsRatesWithGaps) {
  const report::ReportData d = to_report_data(paced_run());
  ASSERT_EQ(d.timeline.size(), 3u);
  EXPECT_EQ(d.timeline[0].sent_rps, 50);
  EXPECT_EQ(d.timeline[0].errors_5xx, 2);
  EXPECT_EQ(d.timeline[0].p50_ms, 3);
  EXPECT_EQ(d.timeline[1].p99_ms, 8);
  EXPECT_EQ(d.timeline[2].t_s, 2);
  EXPECT_EQ(d.timeline[2].sent_rps, 2);  // 1 over the 0.5 s the row covers, not its 2 s
  EXPECT_EQ(d.timeline[2].completed_rps, 0);
  EXPECT_TRUE(std::isnan(d.timeline[2].p50_ms));
  EXPECT_TRUE(std::isnan(d.timeline[2].p99_ms));
}

// A timeline as a run records it, through the report: a steady rate stays steady to the run's
// end (a partial last second used to be drawn at half the rate), and a run where every request
// timed out has latency over time, like its summary (it used to have none).
TEST(HtmlReport, TimelineOfARecordedRunAgreesWithTheSummary) {
  constexpr std::int64_t kMs = 1'000'000;
  stats::Timeline t(0);
  RunResult r = paced_run();
  r.latency = stats::Histogram();
  for (std::int64_t at = 0; at < 2500 * kMs; at += kMs) {
    t.on_sent(at);
    t.on_completed(at + 100 * kMs, 100 * kMs, stats::ErrorClass::Transport);
    r.latency.record(100 * kMs);
  }
  r.elapsed_ns = 2600 * kMs;
  r.timeline = t.rows(r.elapsed_ns);
  const report::ReportData d = to_report_data(r);
  ASSERT_EQ(d.timeline.size(), 26u);  // 100 ms rows: a run under 10 s
  for (std::size_t i = 0; i < d.timeline.size(); ++i) {
    const report::TimePoint& p = d.timeline[i];
    EXPECT_NEAR(p.sent_rps, i < 25 ? 1000 : 0, 1e-6) << i;
    EXPECT_NEAR(p.completed_rps, i == 0 ? 0 : 1000, 1e-6) << i;
    EXPECT_NEAR(p.errors_transport, p.completed_rps, 1e-6) << i;
    if (i == 0) continue;
    EXPECT_NEAR(p.p50_ms, ns_to_ms(r.latency.percentile(50)), 100 * 0.016) << i;
    EXPECT_NEAR(p.p99_ms, ns_to_ms(r.latency.percentile(99)), 100 * 0.016) << i;
  }
}

TEST(HtmlReport, ClosedLoopHasOneSeriesAndFindingsPassThrough) {
  RunResult r = paced_run();
  r.rate.reset();
  const report::ReportData d = to_report_data(r, {"Threshold crossed: p99 9 ms > 5 ms"});
  ASSERT_EQ(d.latency.size(), 1u);
  EXPECT_EQ(d.latency[0].name, "latency");
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0], "Threshold crossed: p99 9 ms > 5 ms");
}

TEST(HtmlReport, NotHeldIsAFinding) {
  RunResult r = paced_run();
  r.rate->sent = 60;
  const report::ReportData d = to_report_data(r);
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].rfind("The target rate was not held", 0), 0u) << d.findings[0];
}

TEST(HtmlReport, PhasesTableAfterTheErrors) {
  RunResult r = paced_run();
  r.connect.record_n(50'000, 4);
  r.first_byte.record_n(2'000'000, 100);
  const report::ReportData d = to_report_data(r);
  ASSERT_EQ(d.tables.size(), 2u);
  EXPECT_EQ(d.tables[0].title, "Errors");
  const report::Table& t = d.tables[1];
  EXPECT_EQ(t.title, "Request phases (ms)");
  EXPECT_EQ(t.header,
            (std::vector<std::string>{"phase", "count", "min", "mean", "p50", "p99", "max"}));
  ASSERT_EQ(t.rows.size(), 2u);  // no TLS handshake on http
  EXPECT_EQ(t.rows[0][0], "connect");
  EXPECT_EQ(t.rows[0][1], "4");
  EXPECT_EQ(t.rows[1][0], "first byte");
  EXPECT_EQ(t.rows[1][1], "100");
  EXPECT_EQ(t.rows[1][4], report::format_number(2.0));
  EXPECT_EQ(to_report_data(paced_run()).tables.size(), 1u);  // nothing measured: no table
}

TEST(HtmlReport, WritesTheFile) {
  const testing::TempDir temp_dir;
  const std::string& dir = temp_dir.path();
  const std::string path = dir + "/report.html";
  ASSERT_TRUE(write_html_report(paced_run(), path).ok());
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str().rfind("<!doctype html>", 0), 0u);
  EXPECT_NE(text.str().find("corrected"), std::string::npos);
  EXPECT_FALSE(write_html_report(paced_run(), dir + "/missing/report.html").ok());
}

}  // namespace
}  // namespace stampede::loadgen
