// The --rps parts of the text and JSON reports, and the timeline in JSON.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "loadgen/report/json.h"
#include "loadgen/report/text.h"
#include "sample_runs.h"

namespace stampede::loadgen {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// 1000 requests at 250 rps over 4 s: corrected latency 1..1000 ms, uncorrected 1 ms. `late`
// requests lag max_lag_ns, the first `waiting` of them for want of a free connection; the others
// lag 50 us with a connection free (the generator's own lag).
RunResult paced_sample(std::uint64_t late, std::int64_t max_lag_ns, std::uint64_t waiting = 0) {
  RunResult r = samples::finished_run(10, 1000, 0, 4'000'000'000);
  r.cores = 1;
  r.max_seconds = 4;
  r.concurrency = 10;
  RateResult& rate = samples::pace(r, 250, 1000, 4'000'000'000);
  rate.late = late;
  rate.late_waiting = waiting;
  for (std::uint64_t i = 1; i <= 1000; ++i) {
    r.latency.record(static_cast<std::int64_t>(i) * 1'000'000LL);
    rate.uncorrected.record(1'000'000);
    const bool on_time = i <= 1000 - late;
    rate.lag.record(on_time ? 50'000 : max_lag_ns);
    if (on_time || i > 1000 - late + waiting)
      rate.generator_lag.record(on_time ? 50'000 : max_lag_ns);
  }
  r.timeline.push_back({0, 1, 250, 250, 0, 2, 0, 1'000'000, 2'000'000, 1, true});
  // The last row: the run ended a quarter of the way into it, and nothing ended in it.
  r.timeline.push_back({1, 1, 5, 0, 0, 0, 0, 0, 0, 0.25, false});
  return r;
}

std::string r_late_cause(const RunResult& r) {
  return r.late_cause();
}

using samples::text_of;

TEST(RateReport, TextLabelsBothLatencySets) {
  const std::string text = text_of(paced_sample(0, 0));
  EXPECT_THAT(text, HasSubstr("\nTarget rps:          250\nConcurrent clients:  10\n"));
  EXPECT_THAT(text, HasSubstr("\nCorrected latency (from each request's intended send time):\n"
                              "Percentage of requests served within a certain time\n"
                              "  50%      500.171 ms\n"));
  EXPECT_THAT(
      text, HasSubstr("\nUncorrected latency (from each request's connect or first byte written):\n"
                      "  50%      1.000 ms\n"));
  EXPECT_THAT(text,
              HasSubstr("\nTarget rate:         250 rps\n"
                        "Achieved rate:       250.0 rps (1000 of 1000 scheduled requests sent)\n"
                        "Send lag:            p50 0.050 ms, p99 0.050 ms, max 0.050 ms\n"
                        "  generator's own:   p50 0.050 ms, p99 0.050 ms, max 0.050 ms (requests "
                        "that had a free connection at their time)\n"
                        "Late requests:       0 (sent more than 1 ms behind the schedule; 0 of "
                        "them waited for a free connection)\n"));
  EXPECT_THAT(text, Not(HasSubstr("not held")));
  EXPECT_THAT(text, Not(HasSubstr("fell behind")));
  EXPECT_EQ(r_late_cause(paced_sample(0, 0)), "");
}

TEST(RateReport, SaysWhoseFaultTheLateRequestsWere) {
  // All 200 late requests waited for a connection: the server kept the pool busy.
  const std::string server = text_of(paced_sample(200, 800'000'000, 200));
  EXPECT_THAT(server, HasSubstr("; 200 of them waited for a free connection)\n"));
  EXPECT_THAT(server, HasSubstr("schedule). 200 of the late requests waited for a free "
                                "connection: all 10 connections were still waiting for "
                                "responses when they were due"));
  EXPECT_THAT(server, Not(HasSubstr("generator itself")));
  // With --cores 2 a request waited for its own worker's connections, not for all -c: the
  // sentence says so (it used to say "all 10 connections").
  RunResult two = paced_sample(200, 800'000'000, 200);
  two.cores = 2;
  EXPECT_THAT(r_late_cause(two),
              HasSubstr("200 of the late requests waited for a free connection: every connection "
                        "of their worker was still waiting for a response when they were due (-c "
                        "10 is split over 2 workers, 5 each, and a worker sends only on its own), "
                        "so the server answered too slowly for -c 10"));
  EXPECT_THAT(r_late_cause(two), Not(HasSubstr("all 10 connections")));
  two.cores = 3;
  EXPECT_THAT(r_late_cause(two), HasSubstr("-c 10 is split over 3 workers, 3 or 4 each"));
  // The generator's own lag excludes them: 800 requests at 50 us.
  EXPECT_THAT(server, HasSubstr("  generator's own:   p50 0.050 ms, p99 0.050 ms, max 0.050 ms"));
  // None waited: the generator fell behind, and its own lag shows it.
  const std::string own = text_of(paced_sample(200, 800'000'000, 0));
  EXPECT_THAT(own, HasSubstr("schedule). 200 were late with a connection free: the generator "
                             "itself fell behind"));
  EXPECT_THAT(own, Not(HasSubstr("waited for a free connection:")));
  EXPECT_THAT(own, HasSubstr("  generator's own:   p50 0.050 ms, p99 8"));
  // Both causes, in one sentence each; a held target with late requests still names the cause.
  const std::string both = text_of(paced_sample(3, 2'000'000, 2));
  EXPECT_THAT(both, Not(HasSubstr("not held")));
  EXPECT_THAT(both, HasSubstr("\n2 of the late requests waited for a free connection: all 10 "));
  EXPECT_THAT(both, HasSubstr("; 1 was late with a connection free: the generator itself"));
}

TEST(RateReport, TextSaysPlainlyWhenTheTargetWasNotHeld) {
  RunResult r = paced_sample(200, 800'000'000);
  r.total_requests = 900;
  r.rate->sent = 900;
  r.rate->ramp_seconds = 2;
  const std::string text = text_of(r);
  EXPECT_THAT(text, HasSubstr("Target rps:          250 (ramp 2 s)\n"));
  EXPECT_THAT(text,
              HasSubstr("Achieved rate:       225.0 rps (900 of 1000 scheduled requests sent)\n"));
  EXPECT_THAT(text, HasSubstr("\nThe target rate was not held: 225.0 rps achieved for 250 rps "
                              "asked; 200 of 900 requests were sent more than 1 ms late (p99 "));
  EXPECT_FALSE(r.target_held());
}

TEST(RateReport, ClosedLoopTextIsUnchanged) {
  RunResult r = paced_sample(0, 0);
  r.rate.reset();
  const std::string text = text_of(r);
  EXPECT_THAT(text, Not(HasSubstr("Target rps")));
  EXPECT_THAT(text, Not(HasSubstr("Target rate")));
  EXPECT_THAT(text, Not(HasSubstr("orrected")));
  EXPECT_THAT(text, Not(HasSubstr("Send lag")));
}

TEST(RateReport, JsonFields) {
  const auto j = to_json(paced_sample(3, 2'000'000));
  EXPECT_EQ(j["requestsPerSecond"], 250);
  EXPECT_EQ(j["rampSeconds"], 0);
  EXPECT_DOUBLE_EQ(j["achievedRps"].get<double>(), 250);
  EXPECT_EQ(j["scheduledRequests"], 1000);
  EXPECT_EQ(j["sentRequests"], 1000);
  EXPECT_EQ(j["targetHeld"], true);  // 3 late of 1000: the p99 lag is within 1 ms
  EXPECT_DOUBLE_EQ(j["correctedPercentiles"]["50"].get<double>(), 500.171);  // HDR bucket
  EXPECT_EQ(j["correctedPercentiles"], j["percentiles"]);
  EXPECT_DOUBLE_EQ(j["uncorrectedPercentiles"]["99"].get<double>(), 1);
  EXPECT_DOUBLE_EQ(j["uncorrectedMeanLatencyMs"].get<double>(), 1);
  EXPECT_DOUBLE_EQ(j["sendLagMs"]["50"].get<double>(), 0.05);
  EXPECT_DOUBLE_EQ(j["sendLagMs"]["max"].get<double>(), 2);
  EXPECT_EQ(j["lateRequests"], 3);
  EXPECT_EQ(j["lateWaitingForConnection"], 0);
  EXPECT_DOUBLE_EQ(j["generatorLagMs"]["max"].get<double>(), 2);
  const auto waited = to_json(paced_sample(3, 2'000'000, 3));
  EXPECT_EQ(waited["lateWaitingForConnection"], 3);
  EXPECT_DOUBLE_EQ(waited["generatorLagMs"]["99"].get<double>(), 0.05);
  EXPECT_DOUBLE_EQ(waited["generatorLagMs"]["max"].get<double>(), 0.05);
  EXPECT_DOUBLE_EQ(waited["sendLagMs"]["max"].get<double>(), 2);
}

TEST(RateReport, JsonTimelineRows) {
  const auto j = to_json(paced_sample(0, 0));
  ASSERT_EQ(j["timeline"].size(), 2u);
  const auto& first = j["timeline"][0];
  EXPECT_EQ(first["second"], 0);
  EXPECT_EQ(first["widthSeconds"], 1);
  EXPECT_EQ(first["sent"], 250);
  EXPECT_EQ(first["completed"], 250);
  EXPECT_EQ(first["errors4xx"], 0);
  EXPECT_EQ(first["errors5xx"], 2);
  EXPECT_EQ(first["errorsTransport"], 0);
  EXPECT_DOUBLE_EQ(first["p50Ms"].get<double>(), 1);
  EXPECT_DOUBLE_EQ(first["p99Ms"].get<double>(), 2);
  EXPECT_EQ(first["coveredSeconds"], 1);
  EXPECT_EQ(first["sentPerSecond"], 250);
  EXPECT_EQ(first["completedPerSecond"], 250);
  // Nothing ended in the second row: no latency, null rather than 0.
  const auto& last = j["timeline"][1];
  EXPECT_TRUE(last["p50Ms"].is_null());
  EXPECT_TRUE(last["p99Ms"].is_null());
  // Its rates are over the quarter second it covers, not its whole second.
  EXPECT_EQ(last["widthSeconds"], 1);
  EXPECT_EQ(last["coveredSeconds"], 0.25);
  EXPECT_EQ(last["sentPerSecond"], 20);
  EXPECT_EQ(last["completedPerSecond"], 0);
}

TEST(RateReport, JsonClosedLoopHasNulls) {
  RunResult r = paced_sample(0, 0);
  r.rate.reset();
  r.timeline.clear();
  const auto j = to_json(r);
  for (const char* key :
       {"requestsPerSecond", "rampSeconds", "achievedRps", "scheduledRequests", "sentRequests",
        "targetHeld", "correctedPercentiles", "uncorrectedPercentiles", "sendLagMs",
        "generatorLagMs", "lateRequests", "lateWaitingForConnection"}) {
    EXPECT_TRUE(j[key].is_null()) << key;
  }
  EXPECT_TRUE(j["timeline"].is_array());
  EXPECT_TRUE(j["timeline"].empty());
}

}  // namespace
}  // namespace stampede::loadgen
