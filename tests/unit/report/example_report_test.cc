// Builds a report from a synthetic but realistic run (60 s at 2,000 req/s, a 1.5 s server stall,
// load shedding and rate limiting) and checks it end to end. The page is written to
// $STAMPEDE_REPORT_EXAMPLE when set (scripts/render_check.sh renders it), else to a temp dir.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/random.h"
#include "markup_check.h"
#include "report/axis.h"
#include "report/html_report.h"

namespace stampede::report {
namespace {

constexpr double kRate = 2000;
constexpr double kDurationS = 60;
constexpr int kConnections = 8;
constexpr double kStallStart = 30.0;
constexpr double kStallEnd = 31.5;

enum class Outcome { Ok, Status429, Status503, Transport };

struct Request {
  double sent_s;
  double done_s;
  double corrected_ms;    // from the intended send time
  double uncorrected_ms;  // from the actual send time
  Outcome outcome;
};

// Lognormal service time around 1.8 ms with a 1% slow tail.
double service_ms(Random& rng) {
  const double u1 = std::max(rng.unit(), 1e-12);
  const double gauss = std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * rng.unit());
  const double base = 1.8 * std::exp(0.35 * gauss);
  return rng.unit() < 0.01 ? base * (3 + 4 * rng.unit()) : base;
}

std::vector<Request> simulate() {
  Random rng(42);
  std::vector<Request> out;
  const auto n = static_cast<std::size_t>(kRate * kDurationS);
  int stuck = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double intended = static_cast<double>(i) / kRate;
    const double s = service_ms(rng);
    Request r{intended, 0, s, s, Outcome::Ok};
    if (intended >= kStallStart && intended < kStallEnd) {
      // The first requests of the stall hang their connections until a 1 s timeout; the rest
      // wait for a free connection and go out in a burst when the server recovers.
      if (stuck < kConnections) {
        ++stuck;
        r.outcome = Outcome::Transport;
        r.uncorrected_ms = r.corrected_ms = 1000;
      } else {
        r.sent_s = kStallEnd + 0.002 * rng.unit();
        r.uncorrected_ms = s + 2 * rng.unit();
        r.corrected_ms = (r.sent_s - intended) * 1000 + r.uncorrected_ms;
      }
    }
    r.done_s = intended + r.corrected_ms / 1000;
    if (r.outcome == Outcome::Ok && r.done_s >= kStallEnd && r.done_s < kStallEnd + 1 &&
        rng.unit() < 0.25) {
      r.outcome = Outcome::Status503;  // load shedding while the backlog drains
    } else if (r.outcome == Outcome::Ok && intended >= 45 && intended < 50 && rng.unit() < 0.015) {
      r.outcome = Outcome::Status429;
    }
    out.push_back(r);
  }
  return out;
}

double quantile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return std::nan("");
  const auto rank =
      static_cast<std::size_t>(std::ceil(p / 100 * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}

// HdrHistogram's reporting steps: 5 ticks per half distance to 100%, then the max at 100%.
PercentileSeries distribution(std::string name, std::vector<double> values) {
  std::sort(values.begin(), values.end());
  PercentileSeries s{std::move(name), {}};
  const double n = static_cast<double>(values.size());
  for (double p = 0; std::ceil(p / 100 * n) < n;) {
    s.points.emplace_back(p, quantile(values, p));
    const double halvings = std::floor(std::log2(100 / (100 - p)));
    p += 100 / (5 * std::pow(2.0, halvings + 1));
  }
  s.points.emplace_back(100, values.back());
  return s;
}

std::vector<TimePoint> timeline(const std::vector<Request>& reqs) {
  const auto rows = static_cast<std::size_t>(kDurationS);  // the drain folds into the last row
  std::vector<TimePoint> t(rows);
  std::vector<std::vector<double>> lat(rows);
  for (std::size_t i = 0; i < rows; ++i)
    t[i].t_s = static_cast<double>(i);
  for (const Request& r : reqs) {
    t[std::min(rows - 1, static_cast<std::size_t>(r.sent_s))].sent_rps += 1;
    TimePoint& row = t[std::min(rows - 1, static_cast<std::size_t>(r.done_s))];
    row.completed_rps += 1;
    row.errors_4xx += r.outcome == Outcome::Status429;
    row.errors_5xx += r.outcome == Outcome::Status503;
    row.errors_transport += r.outcome == Outcome::Transport;
    if (r.outcome != Outcome::Transport) {
      lat[std::min(rows - 1, static_cast<std::size_t>(r.done_s))].push_back(r.corrected_ms);
    }
  }
  for (std::size_t i = 0; i < rows; ++i) {
    std::sort(lat[i].begin(), lat[i].end());
    t[i].p50_ms = quantile(lat[i], 50);
    t[i].p99_ms = quantile(lat[i], 99);
  }
  return t;
}

std::string ms(double v) {
  return format_number(v) + " ms";
}

std::string share(std::size_t part, std::size_t total) {
  return format_number(100.0 * static_cast<double>(part) / static_cast<double>(total)) + "%";
}

ReportData example_data() {
  const std::vector<Request> reqs = simulate();
  std::vector<double> corrected;
  std::vector<double> uncorrected;
  std::size_t by_outcome[4] = {};
  for (const Request& r : reqs) {
    ++by_outcome[static_cast<int>(r.outcome)];
    if (r.outcome == Outcome::Transport) continue;
    corrected.push_back(r.corrected_ms);
    uncorrected.push_back(r.uncorrected_ms);
  }
  ReportData d;
  d.title = "stampede load test";
  d.subtitle = "GET http://127.0.0.1:8080/api/items?id=42 · 8 connections · 2,000 req/s · 60 s";
  d.latency = {distribution("corrected", corrected), distribution("uncorrected", uncorrected)};
  d.timeline = timeline(reqs);
  std::sort(corrected.begin(), corrected.end());
  std::sort(uncorrected.begin(), uncorrected.end());
  const std::size_t n = reqs.size();
  const std::size_t errors = n - by_outcome[0];
  d.summary = {
      {"Requests", format_number(static_cast<double>(n))},
      {"Throughput", format_number(static_cast<double>(n - errors) / kDurationS) + " req/s"},
      {"Errors", format_number(static_cast<double>(errors)) + " (" + share(errors, n) + ")"},
      {"Duration", "60 s"},
      {"Latency p50", ms(quantile(corrected, 50))},
      {"Latency p90", ms(quantile(corrected, 90))},
      {"Latency p99", ms(quantile(corrected, 99))},
      {"Latency p99.9", ms(quantile(corrected, 99.9))},
      {"Latency max", ms(corrected.back())},
      {"p99 uncorrected", ms(quantile(uncorrected, 99))}};
  Table status{"Responses", {"status", "count", "share"}, {}};
  const char* names[4] = {"200 OK", "429 Too Many Requests", "503 Service Unavailable",
                          "transport error (timeout)"};
  for (int i = 0; i < 4; ++i) {
    status.rows.push_back(
        {names[i], format_number(static_cast<double>(by_outcome[i])), share(by_outcome[i], n)});
  }
  d.tables = {status};
  const double p99 = quantile(corrected, 99);
  if (p99 > 250) d.findings.push_back("p99 latency " + ms(p99) + " exceeds the 250 ms threshold");
  d.findings.push_back("Uncorrected p99 (" + ms(quantile(uncorrected, 99)) +
                       ") hides the stall: measure from the intended send time");
  return d;
}

std::string output_path() {
  const char* env = std::getenv("STAMPEDE_REPORT_EXAMPLE");
  if (env != nullptr && *env != '\0') return env;
  return ::testing::TempDir() + "/stampede_report_example.html";
}

TEST(ExampleReport, RealisticRunRendersCompletely) {
  const ReportData d = example_data();
  ASSERT_EQ(d.timeline.size(), 60u);
  // The stall shows where it happened: p99 of the second after it is far above the baseline.
  EXPECT_GT(d.timeline[31].p99_ms, 10 * d.timeline[10].p99_ms);
  EXPECT_GT(d.timeline[31].errors_5xx, 0);

  const std::string path = output_path();
  ASSERT_TRUE(write_html_file(d, path).ok()) << path;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  const std::string html = content.str();
  EXPECT_EQ(testing::check_balanced(html), "");
  EXPECT_EQ(testing::svg_elements(html).size(), 4u);
  EXPECT_EQ(testing::count(html, ">No data</text>"), 0u);
  EXPECT_EQ(testing::count(html, ">corrected</text>"), 1u);
  EXPECT_EQ(testing::count(html, ">uncorrected</text>"), 1u);
  EXPECT_NE(html.find("exceeds the 250 ms threshold"), std::string::npos);
  EXPECT_LT(html.size(), 400u * 1024);  // small enough to attach to a pull request
  if (std::getenv("STAMPEDE_REPORT_EXAMPLE") == nullptr) std::remove(path.c_str());
}

}  // namespace
}  // namespace stampede::report
