// An --http2 run's HTTP/2 section in the HTML report (--html, also after stampede merge): the
// streams per connection, RST_STREAM and GOAWAY counts by code and the server's SETTINGS, worded
// as the text report words them; no such table for an HTTP/1.1 run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "loadgen/h2_stats.h"
#include "loadgen/report/html.h"
#include "loadgen/report/text.h"
#include "sample_runs.h"
#include "support/temp_dir.h"

namespace stampede::loadgen {
namespace {

using ::testing::HasSubstr;

RunResult reported_h2_run() {
  RunResult r = samples::finished_run(2, 100, 0, 1'000'000'000);
  r.latency.record_n(1'000'000, 100);
  r.http2 = true;
  r.streams = 16;
  r.h2.rst_stream = {{7, 3}};
  r.h2.goaway = {{0, 1}};
  H2ServerSettings& s = r.h2.server_settings.emplace();
  s.max_concurrent_streams = 2;
  s.initial_window_size = 1073741823;
  return r;
}

const report::Table* table_titled(const report::ReportData& d, const std::string& title) {
  for (const report::Table& t : d.tables) {
    if (t.title == title) return &t;
  }
  return nullptr;
}

// Two codes the RFC does not define are both "UNKNOWN": they add up, in the JSON object (where
// one key used to overwrite the other) and in the text.
TEST(H2Counts, CodesTheRfcDoesNotDefineAddUpUnderUnknown) {
  H2Counts counts;
  counts.rst_stream = {{7, 1}, {0x1f, 2}, {0x20, 3}};
  counts.goaway = {{0x40, 4}};
  const nlohmann::ordered_json j = h2_json(counts, 1);
  EXPECT_EQ(j["rstStream"]["REFUSED_STREAM"], 1);
  EXPECT_EQ(j["rstStream"]["UNKNOWN"], 5);
  EXPECT_EQ(j["rstStream"].size(), 2u);
  EXPECT_EQ(j["goaway"]["UNKNOWN"], 4);
  std::ostringstream text;
  write_h2_text(counts, 1, text);
  EXPECT_THAT(text.str(), HasSubstr("1 x REFUSED_STREAM, 5 x UNKNOWN"));
}

TEST(H2HtmlReport, AnHttp2RunHasTheHttp2Table) {
  const report::ReportData d = to_report_data(reported_h2_run());
  const report::Table* t = table_titled(d, "HTTP/2");
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->header.empty());  // a key/value table
  const std::vector<std::vector<std::string>> rows = {
      {"Streams/connection", "2 (--streams 16: the server allows 2)"},
      {"RST_STREAM received", "3 x REFUSED_STREAM"},
      {"GOAWAY received", "1 x NO_ERROR"},
      {"Server SETTINGS",
       "MAX_CONCURRENT_STREAMS 2, INITIAL_WINDOW_SIZE 1073741823, MAX_FRAME_SIZE 16384"}};
  EXPECT_EQ(t->rows, rows);

  // The text report says the same, line for line.
  std::ostringstream text;
  write_text_report(reported_h2_run(), text);
  for (const auto& row : rows) {
    EXPECT_THAT(text.str(), HasSubstr(fmt::format("{:<21}{}\n", row[0] + ":", row[1])));
  }
}

TEST(H2HtmlReport, AnHttp1RunHasNone) {
  RunResult r = reported_h2_run();
  r.http2 = false;
  EXPECT_EQ(table_titled(to_report_data(r), "HTTP/2"), nullptr);
}

TEST(H2HtmlReport, DifferingSettingsAndNoneReceivedAreSaid) {
  RunResult r = reported_h2_run();
  r.h2.settings_differ = true;
  const report::ReportData differing = to_report_data(r);
  const report::Table* differ = table_titled(differing, "HTTP/2");
  ASSERT_NE(differ, nullptr);
  EXPECT_THAT(differ->rows.back()[1], HasSubstr("differ between connections; first seen: "));
  r.h2 = H2Counts{};
  const report::ReportData nothing = to_report_data(r);
  const report::Table* none = table_titled(nothing, "HTTP/2");
  ASSERT_NE(none, nullptr);
  EXPECT_EQ(none->rows.back()[1], "none received");
  EXPECT_EQ(none->rows[1][1], "0");
}

TEST(H2HtmlReport, ThePageShowsIt) {
  const testing::TempDir dir;
  const std::string path = dir.path() + "/report.html";
  ASSERT_TRUE(write_html_report(reported_h2_run(), path).ok());
  std::ifstream in(path);
  std::stringstream page;
  page << in.rdbuf();
  EXPECT_THAT(page.str(), HasSubstr("HTTP/2"));
  EXPECT_THAT(page.str(), HasSubstr("3 x REFUSED_STREAM"));
  EXPECT_THAT(page.str(), HasSubstr("MAX_CONCURRENT_STREAMS 2"));
}

}  // namespace
}  // namespace stampede::loadgen
