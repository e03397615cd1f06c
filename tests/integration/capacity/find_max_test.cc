// stampede --find-max against the test server behind a pool of known size: with -c 8 keep-alive
// connections and a 20 ms delay per response, no more than 8 / 20 ms = 400 req/s can be served,
// so the capacity is known by construction and the search must find it to its resolution. Short
// steps (0.5 s) and a coarse resolution (10%) keep the search to about 6 s; docs/capacity.md and
// bench/find_max.sh have the full-length runs.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "support/process.h"
#include "support/temp_dir.h"
#include "support/test_server.h"

namespace stampede {
namespace {

using testing::run_stampede;

constexpr double kTruthRps = 400;  // -c 8 / 20 ms
constexpr double kResolution = 0.10;

class FindMax : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server::ServerOptions options;
    options.delay = std::chrono::milliseconds(20);
    server_ = testing::start_server(options).release();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  static std::string url() { return "http://127.0.0.1:" + std::to_string(server_->port()) + "/"; }

  static server::Server* server_;
};

server::Server* FindMax::server_ = nullptr;

TEST_F(FindMax, FindsTheCapacityOfAPoolOfKnownSize) {
  ASSERT_NE(server_, nullptr);
  const testing::TempDir dir;
  const std::string html = dir.file("capacity.html");
  const auto r = run_stampede({"--find-max", "--max-p99", "200", "-c", "8", "-k", "--cores", "1",
                               "--step-duration", "500ms", "--cool-down", "100ms", "--resolution",
                               "10", "--json", "--quiet", "--html", html, url()},
                              std::chrono::seconds(60));
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["outcome"], "found");
  ASSERT_TRUE(j["probeRps"].is_number());  // no --start-rps: the closed-loop probe ran
  const double capacity = j["capacityRps"];
  const double first_fail = j["firstFailingRps"];
  // Within the resolution below the truth, plus 5% for what a response costs beyond its delay
  // (parsing, loopback, the timer); never above the truth by more than the rate rule's 3%.
  EXPECT_GE(capacity, kTruthRps * (1 - kResolution - 0.05)) << r.out;
  EXPECT_LE(capacity, kTruthRps * 1.03) << r.out;
  EXPECT_GT(first_fail, capacity);
  EXPECT_LE(first_fail - capacity, kResolution * capacity + 1e-9);
  // Every step is in the table; the failing ones say why.
  ASSERT_GE(j["steps"].size(), 3u);
  for (const auto& step : j["steps"]) {
    EXPECT_GT(step["requests"].get<double>(), 0);
    EXPECT_NE(step["verdict"], "generator") << step.dump();
    EXPECT_EQ(step["verdict"] == "pass", step["reason"] == "") << step.dump();
  }
  const std::string page = testing::read_file(html);
  EXPECT_NE(page.find("p99 against rate"), std::string::npos);
  EXPECT_NE(page.find("<svg"), std::string::npos);
}

TEST_F(FindMax, AFirstStepOverTheLimitsExitsWithStatus3) {
  ASSERT_NE(server_, nullptr);
  // Every response takes 20 ms: a 5 ms p99 cannot be met at any rate.
  const auto r =
      run_stampede({"--find-max", "--max-p99", "5", "-c", "2", "-k", "--cores", "1", "--start-rps",
                    "20", "--step-duration", "300ms", "--cool-down", "0", "--quiet", url()},
                   std::chrono::seconds(30));
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_EQ(r.err.rfind("stampede: No capacity found: even the first step, 20.0 req/s, failed "
                        "(p99 ",
                        0),
            0u)
      << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_NE(r.out.find("latency"), std::string::npos) << r.out;
}

TEST_F(FindMax, BadInputIsOneLineAndStatus2) {
  ASSERT_NE(server_, nullptr);
  auto r = run_stampede({"--find-max", url()});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "stampede: --find-max needs --max-p99 MS\n");
  r = run_stampede({"--find-max", "--max-p99", "10", "--resolution", "0", url()});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "stampede: --resolution: expected a percentage above 0 and at most 100, got '0'\n");
  EXPECT_TRUE(r.out.empty());
}

}  // namespace
}  // namespace stampede
