#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "loadgen/report/json.h"
#include "loadgen/report/text.h"
#include "sample_runs.h"
#include "support/text_checks.h"

namespace stampede::loadgen {
namespace {

// 100 requests: 50 x 100 us, 40 x 200 us, 9 x 1 ms, 1 x 5 ms; 1 error 500, 2 refused.
RunResult sample() {
  RunResult r = samples::finished_run(10, 100, 3, 500'000'000);
  r.cores = 2;
  r.max_requests = 100;
  r.concurrency = 10;
  r.latency.record_n(100'000, 50);
  r.latency.record_n(200'000, 40);
  r.latency.record_n(1'000'000, 9);
  r.latency.record(5'000'000);
  r.error_codes = {{"500", 1}, {"ECONNREFUSED", 2}};
  r.status_counts = {{200, 97}, {500, 1}};
  r.bytes_read = 1000;
  r.bytes_written = 2000;
  r.connections_opened = 12;
  return r;
}

TEST(TextReport, LoadtestsFormatWithFinerPercentiles) {
  const std::string out = samples::text_of(sample());
  EXPECT_EQ(out,
            "\n"
            "Target URL:          http://127.0.0.1:8080/\n"
            "Max requests:        100\n"
            "Concurrent clients:  10\n"
            "Running on cores:    2\n"
            "Agent:               keepalive\n"
            "\n"
            "Completed requests:  100\n"
            "Total errors:        3\n"
            "Total time:          0.500 s\n"
            "Mean latency:        0.270 ms\n"
            "Effective rps:       200\n"
            "\n"
            "Percentage of requests served within a certain time\n"
            "  50%      0.100 ms\n"
            "  90%      0.200 ms\n"
            "  95%      1.000 ms\n"
            "  99%      1.000 ms\n"
            "99.9%      5.000 ms\n"
            " 100%      5.000 ms (longest request)\n"
            "\n"
            "  500:   1 errors\n"
            "  ECONNREFUSED:   2 errors\n");
}

TEST(TextReport, TimeLimitAndNoErrors) {
  RunResult r = sample();
  r.max_requests = 0;
  r.max_seconds = 10;
  r.keep_alive = false;
  r.total_errors = 0;
  r.error_codes.clear();
  r.header_counts["x-instance"] = {{"a", 60}, {"b", 40}};
  const std::string text = samples::text_of(r);
  EXPECT_TRUE(stampede::testing::contains_all(
      text, {"\nMax time (s):        10\n", "\nAgent:               none\n",
             "\nResponses by x-instance:\n  a:   60\n  b:   40\n"}));
  EXPECT_TRUE(stampede::testing::contains_none(text, {"Max requests", "errors\n"}));
}

TEST(TextReport, EmptyRunPrintsZeros) {
  RunResult r;
  r.url = "http://127.0.0.1:1/";
  r.max_seconds = 1;
  const std::string out = samples::text_of(r);
  EXPECT_NE(out.find("Completed requests:  0\n"), std::string::npos);
  EXPECT_NE(out.find("Mean latency:        0.000 ms\n"), std::string::npos);
  EXPECT_NE(out.find("Effective rps:       0\n"), std::string::npos);
}

TEST(JsonReport, LoadtestsFieldsAndOurs) {
  const auto j = to_json(sample());
  for (const char* key : {"url",
                          "cores",
                          "maxRequests",
                          "maxSeconds",
                          "concurrency",
                          "agent",
                          "requestsPerSecond",
                          "clients",
                          "totalRequests",
                          "totalErrors",
                          "totalTimeSeconds",
                          "elapsedSeconds",
                          "meanLatencyMs",
                          "minLatencyMs",
                          "maxLatencyMs",
                          "effectiveRps",
                          "percentiles",
                          "errorCodes",
                          "statusCodes",
                          "headerCounts",
                          "bytesReceived",
                          "bytesSent",
                          "connectionsOpened",
                          "interrupted",
                          "latencyStddevMs"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["url"], "http://127.0.0.1:8080/");
  EXPECT_EQ(j["maxRequests"], 100);
  EXPECT_TRUE(j["maxSeconds"].is_null());
  EXPECT_EQ(j["agent"], "keepalive");
  EXPECT_EQ(j["totalRequests"], 100);
  EXPECT_EQ(j["totalErrors"], 3);
  EXPECT_DOUBLE_EQ(j["elapsedSeconds"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(j["meanLatencyMs"].get<double>(), 0.27);
  EXPECT_DOUBLE_EQ(j["minLatencyMs"].get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(j["maxLatencyMs"].get<double>(), 5.0);
  EXPECT_EQ(j["effectiveRps"], 200);
  EXPECT_DOUBLE_EQ(j["percentiles"]["50"].get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(j["percentiles"]["90"].get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(j["percentiles"]["99.9"].get<double>(), 5.0);
  EXPECT_EQ(j["errorCodes"]["500"], 1);
  EXPECT_EQ(j["errorCodes"]["ECONNREFUSED"], 2);
  EXPECT_EQ(j["statusCodes"]["200"], 97);
  EXPECT_EQ(j["bytesReceived"], 1000);
  EXPECT_EQ(j["bytesSent"], 2000);
  EXPECT_EQ(j["connectionsOpened"], 12);
  EXPECT_EQ(j["interrupted"], false);
}

TEST(JsonReport, WritesValidJsonEvenForOddHeaderValues) {
  RunResult r = sample();
  r.header_counts["x-odd"] = {{std::string("\xff\xfe"), 3}};
  std::ostringstream out;
  write_json_report(r, out);
  const auto parsed = nlohmann::json::parse(out.str(), nullptr, false);
  ASSERT_FALSE(parsed.is_discarded());
  EXPECT_EQ(parsed["headerCounts"]["x-odd"].size(), 1u);
}

// EMFILE and the like are this machine's failures: listed apart from the server's errors.
TEST(TextReport, LocalErrorsApartFromTheServers) {
  RunResult r = sample();
  r.total_errors = 5;
  r.local_errors = {{"EMFILE", 2}};
  const std::string out = samples::text_of(r);
  EXPECT_NE(out.find("\n  500:   1 errors\n"
                     "  ECONNREFUSED:   2 errors\n"
                     "\nLocal errors (this machine's limits, not the server's):\n"
                     "  EMFILE:   2 errors\n"),
            std::string::npos)
      << out;
}

TEST(JsonReport, LocalErrorsApartFromTheServers) {
  RunResult r = sample();
  EXPECT_EQ(to_json(r)["localErrors"], nlohmann::ordered_json::object());
  r.local_errors = {{"EMFILE", 2}};
  const nlohmann::ordered_json j = to_json(r);
  EXPECT_EQ(j["localErrors"], nlohmann::ordered_json({{"EMFILE", 2}}));
  EXPECT_EQ(j["errorCodes"], nlohmann::ordered_json({{"500", 1}, {"ECONNREFUSED", 2}}));
}

// The sample with its phases: 12 connects (10 of 50 us, 2 of 200 us), 12 TLS handshakes of 1 ms and
// 97 first bytes of 80 us.
RunResult with_phases() {
  RunResult r = sample();
  r.connect.record_n(50'000, 10);
  r.connect.record_n(200'000, 2);
  r.tls_handshake.record_n(1'000'000, 12);
  r.first_byte.record_n(80'000, 97);
  return r;
}

// ab's Connection Times: a block after the percentiles, only when phases were measured (the
// sample without them prints exactly as before: LoadtestsFormatWithFinerPercentiles).
TEST(TextReport, PhasesBlockAfterThePercentiles) {
  const std::string out = samples::text_of(with_phases());
  EXPECT_NE(out.find(" 100%      5.000 ms (longest request)\n"
                     "\n"
                     "Request phases (ms)     count      min     mean      p50      p99      max\n"
                     "  connect                  12    0.050    0.075    0.050    0.200    0.200\n"
                     "  TLS handshake            12    1.000    1.000    1.000    1.000    1.000\n"
                     "  first byte               97    0.080    0.080    0.080    0.080    0.080\n"
                     "\n"
                     "  500:   1 errors\n"),
            std::string::npos)
      << out;
  // http: no handshake line.
  RunResult plain = with_phases();
  plain.tls_handshake = stats::Histogram();
  const std::string plain_out = samples::text_of(plain);
  EXPECT_EQ(plain_out.find("TLS handshake"), std::string::npos);
  EXPECT_NE(plain_out.find("\n  connect "), std::string::npos);
}

TEST(JsonReport, PhasesAsObjectsOrNull) {
  const nlohmann::ordered_json none = to_json(sample());
  for (const char* key : {"connectMs", "tlsHandshakeMs", "firstByteMs"}) {
    ASSERT_TRUE(none.contains(key)) << key;
    EXPECT_TRUE(none[key].is_null()) << key;
  }
  const nlohmann::ordered_json j = to_json(with_phases());
  EXPECT_EQ(j["connectMs"]["count"], 12);
  EXPECT_DOUBLE_EQ(j["connectMs"]["min"].get<double>(), 0.05);
  EXPECT_DOUBLE_EQ(j["connectMs"]["mean"].get<double>(), 0.075);
  EXPECT_DOUBLE_EQ(j["connectMs"]["50"].get<double>(), 0.05);
  EXPECT_DOUBLE_EQ(j["connectMs"]["99"].get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(j["connectMs"]["max"].get<double>(), 0.2);
  EXPECT_EQ(j["tlsHandshakeMs"]["count"], 12);
  EXPECT_DOUBLE_EQ(j["tlsHandshakeMs"]["mean"].get<double>(), 1.0);
  EXPECT_EQ(j["firstByteMs"]["count"], 97);
  EXPECT_DOUBLE_EQ(j["firstByteMs"]["99"].get<double>(), 0.08);
}

}  // namespace
}  // namespace stampede::loadgen
