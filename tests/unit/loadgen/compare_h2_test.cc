// stampede compare with HTTP/2 runs: the RST_STREAM and GOAWAY rows and their verdicts when both
// sides are HTTP/2, the block of streams and codes under the table, one line instead when only
// one side is, the protocol as part of what makes a test, and the http2 member of --json and
// --save results read (and refused when malformed).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "loadgen/compare.h"
#include "loadgen/report/compare.h"
#include "loadgen/report/compare_input.h"
#include "loadgen/report/json.h"
#include "loadgen/result_file.h"
#include "sample_runs.h"

namespace stampede::loadgen {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// `runs` runs; HTTP/2 ones (streams 10) with `resets` x CANCEL and `goaways` x NO_ERROR each
// when `h2`.
Side h2_side(const std::string& name, std::size_t runs, bool h2, std::uint64_t resets = 0,
             std::uint64_t goaways = 0) {
  Side s{name, {}, RunIdentity{{"url", "http://a/"}}};
  for (std::size_t i = 0; i < runs; ++i) {
    RunFigures f;
    f.requests = 300;
    f.rps = 1000 + static_cast<double>(i);
    f.p50_ms = f.p90_ms = f.p99_ms = f.max_ms = 1 + 0.01 * static_cast<double>(i);
    if (h2) {
      f.h2 = H2Figures{10, 10, {}, {}};
      if (resets > 0) f.h2->rst_stream["CANCEL"] = resets + i;
      if (goaways > 0) f.h2->goaway["NO_ERROR"] = goaways;
    }
    s.runs.push_back(f);
  }
  return s;
}

const Row* h2_row(const Comparison& c, Metric m) {
  for (const Row& r : c.rows) {
    if (r.metric == m) return &r;
  }
  return nullptr;
}

std::string compare_text(const Comparison& c) {
  std::ostringstream out;
  write_compare_text(c, {}, "base.json", "cur.json", out);
  return out.str();
}

TEST(CompareH2, BothSidesHttp2AddResetAndGoawayRowsWithVerdicts) {
  const Comparison c = compare(h2_side("a", 5, true, 0, 1), h2_side("b", 5, true, 12, 1));
  ASSERT_EQ(c.rows.size(), kMetrics.size() + kH2Metrics.size());
  const Row* rst = h2_row(c, Metric::RstStream);
  ASSERT_NE(rst, nullptr);
  EXPECT_EQ(rst->baseline, 0);
  EXPECT_EQ(rst->current, 14);  // the median of 12 .. 16
  EXPECT_FALSE(rst->change.has_value());
  EXPECT_EQ(rst->verdict, Verdict::Changed);
  EXPECT_TRUE(rst->worse);
  EXPECT_EQ(verdict_text(*rst, c, {}), "significantly more resets (p=0.008)");
  const Row* goaway = h2_row(c, Metric::Goaway);
  ASSERT_NE(goaway, nullptr);
  EXPECT_EQ(goaway->verdict, Verdict::NoChange);
  EXPECT_DOUBLE_EQ(*goaway->p_value, 1.0);
  // A reset from none crosses a limit on it; an unchanged GOAWAY count crosses none.
  EXPECT_EQ(crossed_limits(c, {{Metric::RstStream, 10}, {Metric::Goaway, 1}}),
            std::vector<std::string>{"rst_stream from 0 (limit +10%)"});

  const std::string text = compare_text(c);
  EXPECT_THAT(text, HasSubstr("  RST_STREAM           0          14     from 0  significantly "
                              "more resets (p=0.008)\n"));
  EXPECT_THAT(text, HasSubstr("  GOAWAY               1           1      +0.0%  no significant "
                              "change (p=1.00)\n"));
  EXPECT_THAT(text, HasSubstr("HTTP/2, each side's runs together:\n"));
  EXPECT_THAT(text, HasSubstr("  streams/connection  10                              10\n"));
  EXPECT_THAT(text,
              HasSubstr("  RST_STREAM received 0                               70 x CANCEL\n"));
  EXPECT_THAT(text, HasSubstr("  GOAWAY received     5 x NO_ERROR                    5 x "
                              "NO_ERROR\n"));

  const auto j = compare_json(c, {});
  EXPECT_EQ(j["rows"][6]["metric"], "rst_stream");
  EXPECT_EQ(j["rows"][6]["verdict"], "changed");
  EXPECT_EQ(j["rows"][6]["worse"], true);
  EXPECT_EQ(j["rows"][7]["metric"], "goaway");
  EXPECT_EQ(j["http2"]["baseline"]["rstStream"], nlohmann::json::object());
  EXPECT_EQ(j["http2"]["current"]["rstStream"]["CANCEL"], 70);
  EXPECT_EQ(j["http2"]["current"]["goaway"]["NO_ERROR"], 5);
  EXPECT_EQ(j["http2"]["current"]["streamsUsedMax"], 10);
}

TEST(CompareH2, OneSideHttp2IsOneLineAndNoHttp2Rows) {
  const Comparison c = compare(h2_side("a", 5, false), h2_side("b", 5, true, 3));
  EXPECT_EQ(c.rows.size(), kMetrics.size());
  EXPECT_FALSE(c.baseline_h2.has_value());
  ASSERT_TRUE(c.current_h2.has_value());
  const std::string text = compare_text(c);
  EXPECT_THAT(text, HasSubstr("\nHTTP/2: the baseline is HTTP/1.1, the current HTTP/2: the HTTP/2 "
                              "figures (streams, RST_STREAM, GOAWAY) of one side are not "
                              "compared.\n"));
  EXPECT_THAT(text, Not(HasSubstr("RST_STREAM received")));
  EXPECT_TRUE(crossed_limits(c, {{Metric::RstStream, 1}}).empty());
  const auto j = compare_json(c, {});
  EXPECT_TRUE(j["http2"]["baseline"].is_null());
  EXPECT_EQ(j["http2"]["current"]["rstStream"]["CANCEL"], 3 + 4 + 5 + 6 + 7);

  const Comparison plain = compare(h2_side("a", 5, false), h2_side("b", 5, false));
  EXPECT_THAT(compare_text(plain), Not(HasSubstr("HTTP/2")));
  EXPECT_TRUE(compare_json(plain, {})["http2"].is_null());
}

TEST(CompareH2, StreamsTheServerHeldLowerAreShownWithTheAskedNumber) {
  Side a = h2_side("a", 2, true), b = h2_side("b", 2, true);
  for (RunFigures& f : b.runs)
    f.h2->streams = 16;
  b.runs[0].h2->streams_used = 2;
  b.runs[1].h2->streams_used = 4;
  const std::string text = compare_text(compare(a, b));
  EXPECT_THAT(text, HasSubstr("  streams/connection  10                              2 to 4 "
                              "(--streams 16)\n"));
}

TEST(CompareH2, FailOnTakesResetAndGoawayLimits) {
  auto limits = parse_fail_on("rst_stream:+10%,goaway:+50%,p99:+5%");
  ASSERT_TRUE(limits.ok()) << limits.error().message;
  ASSERT_EQ(limits->size(), 3u);
  EXPECT_EQ((*limits)[0].metric, Metric::RstStream);
  EXPECT_EQ((*limits)[1].metric, Metric::Goaway);
  auto unknown = parse_fail_on("rst:+10%");
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.error().message, HasSubstr("rst_stream, goaway)"));
}

// An --http2 run of `requests` requests with 3 x CANCEL and 1 x NO_ERROR GOAWAY (codes 8, 0) and
// a code RFC 9113 does not define (0x77).
RunResult h2_run_result(std::uint64_t requests, std::uint32_t streams) {
  RunResult r = samples::http2_run(requests, streams);
  r.h2.rst_stream = {{8, 3}, {0x77, 2}};
  r.h2.goaway = {{0, 1}};
  r.h2.add_settings(H2ServerSettings{4, 65535, 16384});
  return r;
}

Config compared_h2_config(std::uint32_t streams) {
  Config c;
  c.url = "http://h/";
  c.max_requests = 100;
  c.concurrency = 2;
  c.http2 = true;
  c.streams = streams;
  return c;
}

TEST(CompareH2Input, JsonAndSavedRunsCarryTheirHttp2Figures) {
  const RunResult run = h2_run_result(100, 8);
  auto side = parse_side(to_json(run).dump(), "h2.json");
  ASSERT_TRUE(side.ok()) << side.error().message;
  ASSERT_TRUE(side->runs[0].h2.has_value());
  const H2Figures& f = *side->runs[0].h2;
  EXPECT_EQ(f.streams, 8u);
  EXPECT_EQ(f.streams_used, 4u);  // the server's MAX_CONCURRENT_STREAMS
  EXPECT_EQ(f.rst_stream, (CodeCounts{{"CANCEL", 3}, {"UNKNOWN", 2}}));
  EXPECT_EQ(f.goaway, (CodeCounts{{"NO_ERROR", 1}}));
  EXPECT_EQ(side->identity["protocol"], "HTTP/2, 8 streams per connection");

  auto saved = parse_side(to_result_line(run, compared_h2_config(8), "host", 0) + "\n", "h2.save");
  ASSERT_TRUE(saved.ok()) << saved.error().message;
  ASSERT_TRUE(saved->runs[0].h2.has_value());
  EXPECT_EQ(saved->runs[0].h2->rst_stream, f.rst_stream);
  EXPECT_EQ(saved->runs[0].h2->streams_used, 4u);
  EXPECT_EQ(saved->identity, side->identity);  // both formats name an HTTP/2 test alike

  auto one = parse_side(to_json(h2_run_result(100, 1)).dump(), "one.json");
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_EQ(one->identity["protocol"], "HTTP/2, 1 stream per connection");
}

TEST(CompareH2Input, HTTP1AgainstHttp2IsOneDifferenceAndNotOneFile) {
  RunResult plain = h2_run_result(100, 8);
  plain.http2 = false;
  auto a = parse_side(to_json(plain).dump(), "before.json");
  auto b = parse_side(to_json(h2_run_result(100, 10)).dump(), "after.json");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_FALSE(a->runs[0].h2.has_value());
  EXPECT_EQ(a->identity["protocol"], "HTTP/1.1");
  const Comparison c = compare(*a, *b);
  EXPECT_EQ(c.differences,
            std::vector<std::string>{R"(protocol differs: "HTTP/1.1" in before.json, "HTTP/2, 10 )"
                                     R"(streams per connection" in after.json)"});

  Config plain_config = compared_h2_config(8);
  plain_config.http2 = false;
  const std::string mixed =
      to_result_line(plain, plain_config, "host", 0) + "\n" +
      to_result_line(h2_run_result(100, 8), compared_h2_config(8), "host", 0) + "\n";
  auto refused = parse_side(mixed, "mixed");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            R"(mixed: run 2 is not the same test as run 1 (protocol "HTTP/2, 8 streams per )"
            R"(connection" against "HTTP/1.1"))");
}

TEST(CompareH2Input, AMalformedHttp2MemberIsNotAResult) {
  const nlohmann::json run = nlohmann::json::parse(to_json(h2_run_result(100, 8)).dump());
  const std::vector<std::pair<const char*, nlohmann::json>> cases{
      {"/http2", 42},
      {"/http2/streamsPerConnection", 0},
      {"/http2/streamsPerConnection", 1001},
      {"/http2/streamsPerConnection", "8"},
      {"/http2/streamsUsed", 9},
      {"/http2/streamsUsed", -1},
      {"/http2/rstStream", nlohmann::json::array()},
      {"/http2/rstStream/CANCEL", "3"},
      {"/http2/rstStream/CANCEL", -3},
      {"/http2/goaway/NO_ERROR", 1.5},
      {"/http2/goaway", nullptr}};
  for (const auto& [pointer, value] : cases) {
    nlohmann::json bad = run;
    bad[nlohmann::json::json_pointer(pointer)] = value;
    auto side = parse_side(bad.dump(), "f.json");
    ASSERT_FALSE(side.ok()) << pointer << " = " << value;
    EXPECT_EQ(side.error().message,
              "f.json: JSON, but not a stampede result (write one with --json or --save)");
  }
  nlohmann::json missing = run;
  missing["http2"].erase("goaway");
  EXPECT_FALSE(parse_side(missing.dump(), "f.json").ok());
}

}  // namespace
}  // namespace stampede::loadgen
