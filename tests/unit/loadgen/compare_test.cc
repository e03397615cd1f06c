// stampede compare's engine and reports without a run: verdicts from given per-run figures, the
// --fail-on parse, the table, the sides read from --json and --save text (and every way such a
// file is wrong), and --repeat's combined result.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "loadgen/compare.h"
#include "loadgen/merge.h"
#include "loadgen/report/compare.h"
#include "loadgen/report/compare_input.h"
#include "loadgen/report/json.h"
#include "loadgen/result_file.h"

namespace stampede::loadgen {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A side of `runs` runs whose p50 is `p50_ms` (+ i x 0.01 ms for run i) and rps `rps` (+ i).
Side side_of(const std::string& name, std::size_t runs, double p50_ms, double rps,
             double error_rate = 0) {
  Side s{name, {}, RunIdentity{{"url", "http://a/"}}};
  for (std::size_t i = 0; i < runs; ++i) {
    RunFigures f;
    f.requests = 300;
    f.rps = rps + static_cast<double>(i);
    f.error_rate = error_rate;
    f.p50_ms = p50_ms + 0.01 * static_cast<double>(i);
    f.p90_ms = f.p50_ms * 2;
    f.p99_ms = f.p50_ms * 3;
    f.max_ms = f.p50_ms * 4;
    s.runs.push_back(f);
  }
  return s;
}

const Row& row(const Comparison& c, Metric m) {
  for (const Row& r : c.rows) {
    if (r.metric == m) return r;
  }
  throw std::logic_error("no row");
}

TEST(Compare, OneRunEachCannotTell) {
  const Comparison c = compare(side_of("a", 1, 1, 1000), side_of("b", 1, 5, 500));
  for (const Row& r : c.rows) {
    EXPECT_EQ(r.verdict, Verdict::OneRunEach);
    EXPECT_EQ(verdict_text(r, c, {}), "cannot tell (one run each: use --repeat)");
  }
  EXPECT_TRUE(crossed_limits(c, {{Metric::P50, 10}}).empty());
}

TEST(Compare, ThreeRunsEachCanNeverBeSignificant) {
  const Comparison c = compare(side_of("a", 3, 1, 1000), side_of("b", 3, 5, 500));
  EXPECT_EQ(row(c, Metric::P50).verdict, Verdict::TooFewRuns);
  EXPECT_EQ(verdict_text(row(c, Metric::P50), c, {}),
            "cannot tell (3 and 3 runs: use --repeat 4 or more on each side)");
}

TEST(Compare, SeparatedRunsAreASignificantChange) {
  const Comparison c = compare(side_of("a", 5, 0.1, 3000), side_of("b", 5, 5, 700));
  const Row& p50 = row(c, Metric::P50);
  EXPECT_EQ(p50.verdict, Verdict::Changed);
  EXPECT_TRUE(p50.worse);
  EXPECT_NEAR(p50.baseline, 0.12, 1e-9);  // the median of 0.10 .. 0.14
  EXPECT_NEAR(p50.current, 5.02, 1e-9);
  EXPECT_NEAR(*p50.change, (5.02 - 0.12) / 0.12 * 100, 1e-6);
  EXPECT_NEAR(*p50.p_value, 2.0 / 252, 1e-12);
  EXPECT_THAT(verdict_text(p50, c, {}), StartsWith("significantly slower (p=0.008)"));
  const Row& rps = row(c, Metric::Rps);
  EXPECT_EQ(rps.verdict, Verdict::Changed);
  EXPECT_TRUE(rps.worse);
  EXPECT_THAT(verdict_text(rps, c, {}), StartsWith("significantly lower"));
  // The error rates are all 0: tied, no evidence.
  EXPECT_EQ(row(c, Metric::ErrorRate).verdict, Verdict::NoChange);
  EXPECT_DOUBLE_EQ(*row(c, Metric::ErrorRate).p_value, 1.0);

  const auto crossed = crossed_limits(c, {{Metric::P50, 10}, {Metric::Rps, -5}});
  ASSERT_EQ(crossed.size(), 2u);
  EXPECT_THAT(crossed[0], StartsWith("p50 +4083.3% (limit +10%)"));
  EXPECT_THAT(crossed[1], StartsWith("rps -76.6% (limit -5%)"));
  // A limit in the other direction, or beyond the change, is not crossed.
  EXPECT_TRUE(crossed_limits(c, {{Metric::P50, -10}, {Metric::Rps, 5}}).empty());
  EXPECT_TRUE(crossed_limits(c, {{Metric::P99, 5000}}).empty());
}

TEST(Compare, AnImprovementIsSignificantButNotWorse) {
  const Comparison c = compare(side_of("a", 4, 5, 700), side_of("b", 4, 1, 3000));
  EXPECT_EQ(row(c, Metric::P99).verdict, Verdict::Changed);
  EXPECT_FALSE(row(c, Metric::P99).worse);
  EXPECT_THAT(verdict_text(row(c, Metric::P99), c, {}), StartsWith("significantly faster"));
  EXPECT_THAT(verdict_text(row(c, Metric::Rps), c, {}), StartsWith("significantly higher"));
  EXPECT_TRUE(crossed_limits(c, {{Metric::P99, 10}, {Metric::Rps, -5}}).empty());
}

TEST(Compare, AConsistentChangeUnderTheMinimumIsNoChange) {
  // 1% slower in every run: separated, so p = 2/252, but under the 2% that counts.
  const Comparison c = compare(side_of("a", 5, 10, 1000), side_of("b", 5, 10.1, 1000));
  const Row& p50 = row(c, Metric::P50);
  EXPECT_EQ(p50.verdict, Verdict::NoChange);
  EXPECT_THAT(verdict_text(p50, c, {}), HasSubstr("but under 2%"));
  EXPECT_TRUE(crossed_limits(c, {{Metric::P50, 0.5}}).empty());
  const Comparison strict =
      compare(side_of("a", 5, 10, 1000), side_of("b", 5, 10.1, 1000), CompareParams{0.5});
  EXPECT_EQ(row(strict, Metric::P50).verdict, Verdict::Changed);
  EXPECT_EQ(crossed_limits(strict, {{Metric::P50, 0.5}}).size(), 1u);
}

TEST(Compare, OverlappingRunsAreNoChange) {
  Side a = side_of("a", 5, 1, 1000), b = side_of("b", 5, 1, 1000);
  for (std::size_t i = 0; i < 5; ++i)
    b.runs[i].rps = a.runs[4 - i].rps + (i % 2 == 0 ? 0.5 : -0.5);
  const Comparison c = compare(a, b);
  EXPECT_EQ(row(c, Metric::Rps).verdict, Verdict::NoChange);
  EXPECT_GT(*row(c, Metric::Rps).p_value, 0.5);
}

TEST(Compare, ErrorRateChangesInPointsAndFromZero) {
  const Comparison c = compare(side_of("a", 5, 1, 1000, 0.0), side_of("b", 5, 1, 1000, 0.05));
  const Row& e = row(c, Metric::ErrorRate);
  EXPECT_NEAR(*e.change, 5.0, 1e-9);  // 0% -> 5%: +5 points
  EXPECT_EQ(e.verdict, Verdict::Changed);
  EXPECT_THAT(verdict_text(e, c, {}), StartsWith("significantly more errors"));
  const auto crossed = crossed_limits(c, {{Metric::ErrorRate, 1}});
  ASSERT_EQ(crossed.size(), 1u);
  EXPECT_EQ(crossed[0], "errors +5.0 points (limit +1 points)");
}

TEST(Compare, DifferentTestsAreNamed) {
  Side a = side_of("base.json", 1, 1, 1), b = side_of("cur.json", 1, 1, 1);
  b.identity["url"] = "http://b/";
  b.identity["concurrency"] = 8;
  const Comparison c = compare(a, b);
  ASSERT_EQ(c.differences.size(), 2u);
  EXPECT_EQ(c.differences[0], R"(concurrency differs: none in base.json, 8 in cur.json)");
  EXPECT_EQ(c.differences[1], R"(url differs: "http://a/" in base.json, "http://b/" in cur.json)");
}

TEST(Compare, TheTableHasEveryRowWithItsChangeAndVerdict) {
  const Comparison c = compare(side_of("a", 5, 0.1, 3000), side_of("b", 5, 5, 700));
  std::ostringstream out;
  write_compare_text(c, {}, "base.json", "cur.json", out);
  const std::string text = out.str();
  EXPECT_THAT(text, HasSubstr("Baseline: base.json (5 runs)\nCurrent:  cur.json (5 runs)\n"));
  EXPECT_THAT(text, HasSubstr("  p50 ms           0.120       5.020   +4083.3%  significantly "
                              "slower (p=0.008)\n"));
  EXPECT_THAT(text, HasSubstr("  req/s           3002.0       702.0     -76.6%  significantly "
                              "lower (p=0.008)\n"));
  EXPECT_THAT(text, HasSubstr("  errors %          0.00        0.00   +0.00 pt  no significant "
                              "change (p=1.00)\n"));
  for (const char* label : {"p90 ms", "p99 ms", "max ms"})
    EXPECT_THAT(text, HasSubstr(label));
  const auto j = compare_json(c, {});
  EXPECT_EQ(j["rows"][1]["metric"], "p50");
  EXPECT_EQ(j["rows"][1]["verdict"], "changed");
  EXPECT_EQ(j["rows"][1]["worse"], true);
  EXPECT_EQ(j["rows"][5]["verdict"], "no change");
}

TEST(FailOn, ParsesEachLimitOnce) {
  auto limits = parse_fail_on("p99:+10%,rps:-5%,errors:+0.5%,max:+200%");
  ASSERT_TRUE(limits.ok()) << limits.error().message;
  ASSERT_EQ(limits->size(), 4u);
  EXPECT_EQ((*limits)[0].metric, Metric::P99);
  EXPECT_DOUBLE_EQ((*limits)[0].percent, 10);
  EXPECT_EQ((*limits)[1].metric, Metric::Rps);
  EXPECT_DOUBLE_EQ((*limits)[1].percent, -5);
  EXPECT_EQ((*limits)[2].metric, Metric::ErrorRate);
  EXPECT_DOUBLE_EQ((*limits)[2].percent, 0.5);
}

TEST(FailOn, RefusesMalformedLimitsWithOneLine) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"", "an empty limit"},
      {"p99", "has no ':'"},
      {"p98:+10%", "unknown metric 'p98'"},
      {"latency:+10%", "unknown metric 'latency'"},
      {"p99:10%", "needs a sign"},
      {"p99:+10", "needs a %"},
      {"p99:+%", "needs a number above 0"},
      {"p99:+x%", "needs a number above 0"},
      {"p99:+0%", "needs a number above 0"},
      {"p99:+1e9%", "needs a number above 0"},
      {"p99:+-3%", "needs a number above 0"},
      {"p99:+10%,", "an empty limit"},
      {",p99:+10%", "an empty limit"},
      {"p99:+10%,p99:+5%", "p99 given twice"},
      {"p99:+10%\nrps:-5%", "needs a number above 0"}};
  for (const auto& [text, why] : cases) {
    auto limits = parse_fail_on(text);
    ASSERT_FALSE(limits.ok()) << text;
    EXPECT_THAT(limits.error().message, StartsWith("--fail-on: ")) << text;
    EXPECT_THAT(limits.error().message, HasSubstr(why)) << text;
  }
}

// A run of `requests` requests in 0.1 s, every latency `latency_ns`.
RunResult run_of(std::uint64_t requests, std::int64_t latency_ns, const std::string& url) {
  RunResult r;
  r.url = url;
  r.cores = 1;
  r.concurrency = 4;
  r.clients = 4;
  r.max_requests = requests;
  r.total_requests = requests;
  r.total_errors = requests / 10;
  r.elapsed_ns = 100'000'000;
  r.latency.record_n(latency_ns, requests);
  r.status_counts = {{200, requests}};
  return r;
}

Config config_of(const std::string& url) {
  Config c;
  c.url = url;
  c.max_requests = 300;
  c.concurrency = 4;
  return c;
}

TEST(CompareInput, ReadsASingleJsonRun) {
  auto side = parse_side(to_json(run_of(300, 2'000'000, "http://h/")).dump(2), "one.json");
  ASSERT_TRUE(side.ok()) << side.error().message;
  ASSERT_EQ(side->runs.size(), 1u);
  EXPECT_EQ(side->runs[0].requests, 300u);
  EXPECT_NEAR(side->runs[0].rps, 3000, 1e-9);
  EXPECT_NEAR(side->runs[0].error_rate, 0.1, 1e-12);
  EXPECT_NEAR(side->runs[0].p50_ms, 2.0, 0.01);
  EXPECT_NEAR(side->runs[0].max_ms, 2.0, 0.01);
  EXPECT_EQ(side->identity["url"], "http://h/");
}

TEST(CompareInput, ReadsEveryRunOfARepeatInJsonAndSaved) {
  std::vector<RunResult> runs;
  for (std::int64_t ms : {1, 2, 3})
    runs.push_back(run_of(100, ms * 1'000'000, "http://h/"));
  auto side = parse_side(repeat_json(combine_runs(runs), runs).dump(), "repeat.json");
  ASSERT_TRUE(side.ok()) << side.error().message;
  ASSERT_EQ(side->runs.size(), 3u);
  EXPECT_NEAR(side->runs[2].p50_ms, 3.0, 0.01);

  std::string saved = "a progress line\n";
  for (const RunResult& r : runs)
    saved += to_result_line(r, config_of("http://h/"), "host", 0) + "\n";
  auto from_save = parse_side(saved, "saved.txt");
  ASSERT_TRUE(from_save.ok()) << from_save.error().message;
  ASSERT_EQ(from_save->runs.size(), 3u);
  EXPECT_NEAR(from_save->runs[0].p50_ms, 1.0, 0.01);
  EXPECT_NEAR(from_save->runs[1].rps, 1000, 1e-9);
  EXPECT_EQ(from_save->identity, side->identity);  // both formats name a test alike
}

TEST(CompareInput, RefusesWhatIsNotAResultWithOneLineNamingTheFile) {
  const std::string run = to_json(run_of(300, 1'000'000, "http://h/")).dump();
  nlohmann::json no_percentiles = nlohmann::json::parse(run);
  no_percentiles.erase("percentiles");
  nlohmann::json text_count = nlohmann::json::parse(run);
  text_count["totalRequests"] = "300";
  const std::vector<std::pair<std::string, std::string>> cases{
      {"", "invalid JSON, and no stampede result line"},
      {"not json at all", "invalid JSON"},
      {run.substr(0, run.size() / 2), "invalid JSON"},
      {std::string(100, '[') + std::string(100, ']'), "nested deeper"},
      {"[]", "JSON, but not a stampede result"},
      {"42", "JSON, but not a stampede result"},
      {R"({"format":"stampede-lab","runs":[]})", "JSON, but not a stampede result"},
      {R"({"repeat":{"runs":[]}})", "JSON, but not a stampede result"},
      {R"({"repeat":{"runs":[1,2]}})", "JSON, but not a stampede result"},
      {no_percentiles.dump(), "JSON, but not a stampede result"},
      {text_count.dump(), "JSON, but not a stampede result"},
      {to_json(run_of(0, 0, "http://h/")).dump(), "run 1 has no requests"},
      {std::string(kResultLinePrefix) + ",\"version\":1", "f.json line 1: truncated or corrupt"}};
  for (const auto& [text, why] : cases) {
    auto side = parse_side(text, "f.json");
    ASSERT_FALSE(side.ok()) << text;
    EXPECT_THAT(side.error().message, StartsWith("f.json")) << text;
    EXPECT_THAT(side.error().message, HasSubstr(why)) << text;
    EXPECT_EQ(side.error().message.find('\n'), std::string::npos) << text;
  }
}

TEST(CompareInput, RefusesRunsOfDifferentTestsInOneFile) {
  const std::string saved =
      to_result_line(run_of(100, 1'000'000, "http://h/"), config_of("http://h/"), "host", 0) +
      "\n" +
      to_result_line(run_of(100, 1'000'000, "http://g/"), config_of("http://g/"), "host", 0) + "\n";
  auto side = parse_side(saved, "mixed");
  ASSERT_FALSE(side.ok());
  EXPECT_EQ(side.error().message,
            R"(mixed: run 2 is not the same test as run 1 (url "http://g/" against "http://h/"))");
}

TEST(CompareInput, AMissingFileIsOneLine) {
  auto side = read_side("/nonexistent/stampede-compare.json");
  ASSERT_FALSE(side.ok());
  EXPECT_THAT(side.error().message, HasSubstr("/nonexistent/stampede-compare.json"));
  auto dir = read_side("/");
  ASSERT_FALSE(dir.ok());
}

TEST(Repeat, CombinedResultAddsCountsAndTimesOfTheRuns) {
  std::vector<RunResult> runs{run_of(100, 1'000'000, "http://h/"),
                              run_of(300, 3'000'000, "http://h/")};
  runs[1].elapsed_ns = 300'000'000;
  const RunResult all = combine_runs(runs);
  EXPECT_EQ(all.total_requests, 400u);
  EXPECT_EQ(all.total_errors, 40u);
  EXPECT_EQ(all.elapsed_ns, 400'000'000);
  EXPECT_EQ(all.latency.count(), 400u);
  EXPECT_EQ(all.status_counts.at(200), 400u);
  EXPECT_EQ(all.clients, 4u);  // a setting: the runs', not their sum
  EXPECT_EQ(all.max_requests, 100u);
  EXPECT_NEAR(all.effective_rps(), 1000, 1e-9);

  std::ostringstream out;
  write_repeat_text(all, runs, out);
  EXPECT_THAT(out.str(), StartsWith("Runs (2, one after another)\n"));
  EXPECT_THAT(out.str(), HasSubstr("  1           100     1000.0    10.00     1.000"));
  EXPECT_THAT(out.str(), HasSubstr("  2           300     1000.0    10.00     3.000"));
  EXPECT_THAT(out.str(), HasSubstr("All 2 runs together:\n"));
  const auto j = repeat_json(all, runs);
  EXPECT_EQ(j["totalRequests"], 400);
  EXPECT_EQ(j["repeat"]["count"], 2);
  EXPECT_EQ(j["repeat"]["runs"][1]["totalRequests"], 300);
}

}  // namespace
}  // namespace stampede::loadgen
