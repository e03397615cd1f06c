// --find-max's options: what they set, their bad values, and what contradicts the search (each
// one line, which the command turns into exit status 2).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "cli/generator.h"
#include "generator_fixture.h"

namespace stampede::loadgen {
namespace {

using FindMaxOptions = OptionsBeforeUrl;

// Each value option is given twice, the first value overridden: the last value wins
// (add_last_wins_option).
TEST_F(FindMaxOptions, SetsTheSearch) {
  std::vector<std::string> args = {"--max-p99",    "9",   "--max-error-rate", "1",
                                   "--start-rps",  "100", "--step-duration",  "1s",
                                   "--resolution", "10",  "--cool-down",      "2s"};
  for (std::string arg :
       {"--find-max", "--max-p99", "25", "--max-error-rate", "0.5", "--start-rps", "300",
        "--step-duration", "500ms", "--resolution", "5", "--cool-down", "0", "-c", "8"})
    args.push_back(arg);
  auto r = parse(args);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->find_max);
  EXPECT_EQ(r->find_max->max_p99_ms, 25);
  EXPECT_EQ(r->find_max->max_error_rate_pct, 0.5);
  EXPECT_EQ(r->find_max->start_rps, 300);
  EXPECT_EQ(r->find_max->step_duration, std::chrono::milliseconds(500));
  EXPECT_DOUBLE_EQ(r->find_max->resolution, 0.05);
  EXPECT_EQ(r->find_max->cool_down, std::chrono::nanoseconds(0));
  EXPECT_EQ(r->plan.config.concurrency, 8u);
}

TEST_F(FindMaxOptions, Defaults) {
  auto r = parse({"--find-max", "--max-p99", "25"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->find_max);
  EXPECT_EQ(r->find_max->max_error_rate_pct, kDefaultMaxErrorRatePct);
  EXPECT_FALSE(r->find_max->start_rps);
  EXPECT_FALSE(r->find_max->step_duration);
  EXPECT_DOUBLE_EQ(r->find_max->resolution, kDefaultResolution);
  EXPECT_EQ(r->find_max->cool_down, kDefaultCoolDown);
  EXPECT_FALSE(parse({}).value().find_max);
}

TEST_F(FindMaxOptions, BadValuesAndContradictionsAreOneLineEach) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--find-max"}, "--find-max needs --max-p99 MS"},
      {{"--find-max", "--max-p99", "0"}, "--find-max needs --max-p99 above 0"},
      {{"--find-max", "--max-p99", "-5"}, "--max-p99: expected a number of milliseconds, got '-5'"},
      {{"--find-max", "--max-p99", "nan"},
       "--max-p99: expected a number of milliseconds, got 'nan'"},
      {{"--find-max", "--max-p99", "9", "--max-error-rate", "-1"},
       "--max-error-rate: expected a percentage from 0 to 100, got '-1'"},
      {{"--find-max", "--max-p99", "9", "--resolution", "0"},
       "--resolution: expected a percentage above 0 and at most 100, got '0'"},
      {{"--find-max", "--max-p99", "9", "--resolution", "200"},
       "--resolution: expected a percentage above 0 and at most 100, got '200'"},
      {{"--find-max", "--max-p99", "9", "--resolution", "inf"},
       "--resolution: expected a percentage above 0 and at most 100, got 'inf'"},
      {{"--find-max", "--max-p99", "9", "--step-duration", "0"},
       "--step-duration: expected a duration above 0 to 24h (e.g. 5s, 500ms), got '0'"},
      {{"--find-max", "--max-p99", "9", "--step-duration", "25h"},
       "--step-duration: expected a duration above 0 to 24h (e.g. 5s, 500ms), got '25h'"},
      {{"--find-max", "--max-p99", "9", "--cool-down", "-1s"},
       "--cool-down: expected a duration from 0 to 24h (e.g. 5s, 500ms), got '-1s'"},
      {{"--find-max", "--max-p99", "9", "--start-rps", "0"},
       "--start-rps: expected a rate from 0.001 to 10000000, got '0'"},
      {{"--start-rps", "10"}, "--start-rps needs --find-max"},
      {{"--resolution", "5"}, "--resolution needs --find-max"},
      {{"--find-max", "--max-p99", "9", "-n", "100"},
       "--find-max does not take -n: each step lasts --step-duration"},
      {{"--find-max", "--max-p99", "9", "-t", "5"},
       "--find-max does not take -t: each step lasts --step-duration"},
      {{"--find-max", "--max-p99", "9", "--rps", "100"},
       "--find-max does not take --rps: it chooses each step's rate (--start-rps: the first)"},
      {{"--find-max", "--max-p99", "9", "-k", "--pipeline", "4"},
       "--find-max does not take --pipeline: an open-loop step sends each request at its own "
       "time"},
      {{"--find-max", "--max-p99", "9", "--shard", "1/2"},
       "--find-max does not take --shard: the search runs on one machine"},
      {{"--find-max", "--max-p99", "9", "--save", "x.json"},
       "--find-max does not take --save: a search is not a mergeable run"},
      {{"--find-max", "--max-p99", "9", "--min-rps", "10"},
       "--find-max does not take --min-rps: the search finds the rate"},
      {{"--find-max", "--max-p99", "9", "--sweep-connections", "1,2"},
       "--find-max and --sweep-connections are two searches: give one"},
  };
  for (const auto& [args, message] : cases) {
    SCOPED_TRACE(args.back());
    EXPECT_EQ(error(args), message);
  }
}

class FindMaxWebSocket : public GeneratorCommandLine {
 protected:
  FindMaxWebSocket() : GeneratorCommandLine("ws://127.0.0.1:8080/") {}
};

TEST_F(FindMaxWebSocket, IsRefused) {
  EXPECT_EQ(error({"--find-max", "--max-p99", "9"}), "--find-max needs an http:// or https:// URL");
}

}  // namespace
}  // namespace stampede::loadgen
