// The binary's --rps, --html and thresholds end to end against `stampede serve`: exit status 3
// and one line per crossed threshold, the HTML file, the JSON fields.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/process.h"
#include "support/temp_dir.h"

namespace stampede::loadgen {
namespace {

using namespace std::chrono_literals;
using testing::ChildProcess;
using ::testing::HasSubstr;
using testing::TempDir;
using testing::wait_for_port_file;

class RateBinary : public ::testing::Test {
 protected:
  void SetUp() override {
    serve_ = std::make_unique<ChildProcess>(std::vector<std::string>{
        STAMPEDE_BINARY, "serve", "--port", "0", "--ready-file", dir_ + "/port", "--quiet"});
    port_ = wait_for_port_file(dir_ + "/port", 10s);
    ASSERT_GT(port_, 0) << serve_->stderr_text();
  }
  void TearDown() override { serve_.reset(); }
  testing::RunResult stampede(std::vector<std::string> args, std::string path = "/") {
    args.push_back("http://127.0.0.1:" + std::to_string(port_) + path);
    return testing::run_stampede(std::move(args), 20s);
  }

  TempDir temp_dir_;
  std::string dir_ = temp_dir_.path();
  std::unique_ptr<ChildProcess> serve_;
  int port_ = 0;
};

TEST_F(RateBinary, ThresholdsHeldExitZero) {
  auto r = stampede({"-n", "20", "-k", "--quiet", "--max-p99", "5000", "--max-error-rate", "0",
                     "--min-rps", "0.1"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST_F(RateBinary, EachCrossedThresholdIsOneLineAndExitThree) {
  // /?status=500: every request is an error; no response comes within 1 us, and 20 requests
  // over loopback do not reach 100000 rps: all three are crossed, in this order.
  auto r = stampede({"-n", "20", "-k", "--quiet", "--max-p99", "0.001", "--max-error-rate", "1",
                     "--min-rps", "100000"},
                    "/?status=500");
  EXPECT_EQ(r.status, 3) << r.err;
  std::istringstream lines(r.err);
  std::string p99, errors, rps, extra;
  std::getline(lines, p99);
  std::getline(lines, errors);
  std::getline(lines, rps);
  EXPECT_THAT(p99,
              ::testing::MatchesRegex("stampede: threshold crossed: p99 [0-9.]+ ms > 0.001 ms"));
  EXPECT_EQ(errors, "stampede: threshold crossed: error rate 100% > 1%");
  EXPECT_THAT(rps, ::testing::MatchesRegex("stampede: threshold crossed: rps [0-9.]+ < 100000"));
  EXPECT_FALSE(std::getline(lines, extra)) << extra;
  EXPECT_THAT(r.out, HasSubstr("Completed requests:  20\n"));  // the report came first
}

TEST_F(RateBinary, HtmlAndJsonWithRps) {
  const std::string html = dir_ + "/report.html";
  auto r =
      stampede({"--rps", "200", "-n", "200", "-k", "-c", "4", "--quiet", "--json", "--html", html});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["requestsPerSecond"], 200);
  EXPECT_EQ(j["scheduledRequests"], 200);
  EXPECT_EQ(j["sentRequests"], 200);  // -n: every one, however late a stalled host made it
  EXPECT_EQ(j["totalRequests"], j["sentRequests"]);
  EXPECT_TRUE(j["uncorrectedPercentiles"].is_object());
  ASSERT_TRUE(j["timeline"].is_array());
  int sent = 0;
  for (const auto& row : j["timeline"])
    sent += row["sent"].get<int>();
  EXPECT_EQ(j["sentRequests"], sent);
  const std::string page = testing::read_file(html);
  EXPECT_THAT(page, HasSubstr("uncorrected"));
  EXPECT_THAT(page, HasSubstr("<svg"));
}

TEST_F(RateBinary, HtmlCannotBeWritten) {
  auto r = stampede({"-n", "5", "--quiet", "--html", dir_ + "/missing/report.html"});
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.err, ::testing::StartsWith("stampede: cannot write "));
}

}  // namespace
}  // namespace stampede::loadgen
