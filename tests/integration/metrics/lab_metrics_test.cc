// `stampede lab --metrics-listen`: one endpoint for every generator run of the lab (in process,
// instances as child processes), each series labelled by scenario and run; at the end each run's
// totals are the lab's report's; promtool lints the text clean; a port in use is exit 2 before
// any instance starts.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <thread>

#include "cli/lab_options.h"
#include "cli/metrics_options.h"
#include "lab/lab.h"
#include "lab/live_runs.h"
#include "metrics_support.h"
#include "support/loopback.h"
#include "support/process.h"
#include "support/wait.h"

namespace stampede::testing {
namespace {

using namespace std::chrono_literals;

// The value of the series `name{labels}` (labels as rendered) in `text`; -1 when absent.
double lab_sample(const std::string& text, const std::string& name, const std::string& labels) {
  const std::string key = "\n" + name + "{" + labels + "} ";
  const std::size_t at = text.find(key);
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + key.size()));
}

std::string labels_of(const lab::RunRecord& rec, const std::string& session = {}) {
  std::string out = "scenario=\"" + std::string(lab::scenario_name(rec.scenario)) + "\",run=\"" +
                    rec.label() + "\"";
  return session.empty() ? out : out + ",session=\"" + session + "\"";
}

TEST(LabMetrics, EveryRunLabelledWhileItGoesThenExactlyTheReportsTotals) {
  auto cli = lab::parse_command_line({"lab", "-q", "-t", "0.5", "--scenarios", "even,sticky",
                                      "--strategies", "rr,sticky", "--sessions", "2",
                                      "--session-requests", "50", "--stampede", STAMPEDE_BINARY,
                                      "--metrics-listen", "127.0.0.1:0"});
  ASSERT_TRUE(cli) << cli.error().message;
  ASSERT_TRUE(cli->metrics.listen.has_value());
  lab::LiveRuns live;
  auto endpoint = loadgen::start_metrics_endpoint(cli->metrics, [&live] { return live.render(); });
  ASSERT_TRUE(endpoint) << endpoint.error().message;
  const std::uint16_t port = (*endpoint)->address().port();

  lab::Interrupt interrupt;
  std::optional<Expected<lab::LabResult>> result;
  std::thread runner([&] { result = lab::run_lab(cli->plan, interrupt, nullptr, &live); });
  std::string during;
  const bool seen = eventually(
      [&] {
        during = body_of(get_raw(port, "/metrics"));
        const std::string even = "scenario=\"even\",run=\"even/rr\"";
        return lab_sample(during, "stampede_run_active", even) == 1 &&
               lab_sample(during, "stampede_requests_total", even) > 0;
      },
      20s);
  runner.join();
  ASSERT_TRUE(result.has_value() && *result) << (result ? (*result).error().message : "");
  EXPECT_TRUE(seen) << "no scrape saw the even run in progress:\n" << during.substr(0, 2000);

  const std::string text = body_of(get_raw(port, "/metrics"));
  int sticky = 0;
  for (const lab::RunRecord& rec : (*result)->runs) {
    SCOPED_TRACE(rec.label());
    double requests = 0, errors = 0;
    if (rec.scenario == lab::ScenarioKind::Sticky) {
      ++sticky;
      ASSERT_EQ(rec.sessions.size(), 2u);
      for (const lab::SessionRow& s : rec.sessions) {
        const double n = lab_sample(text, "stampede_requests_total", labels_of(rec, s.name));
        EXPECT_EQ(n, static_cast<double>(s.requests)) << s.name;
        requests += n;
        errors += lab_sample(text, "stampede_failed_requests_total", labels_of(rec, s.name));
      }
    } else {
      requests = lab_sample(text, "stampede_requests_total", labels_of(rec));
      errors = lab_sample(text, "stampede_failed_requests_total", labels_of(rec));
      EXPECT_EQ(lab_sample(text, "stampede_run_active", labels_of(rec)), 0);
    }
    EXPECT_GT(rec.requests, 0u);
    EXPECT_EQ(requests, static_cast<double>(rec.requests));
    EXPECT_EQ(errors, static_cast<double>(rec.errors));
  }
  EXPECT_EQ(sticky, 1);
  EXPECT_GE((*result)->runs.size(), 2u);
  // The direct probes of each instance are runs of the lab too.
  EXPECT_EQ(lab_sample(text, "stampede_requests_total", "scenario=\"probe\",run=\"a\""), 50);
  // One HELP and TYPE per family, whatever the number of runs.
  EXPECT_EQ(text.find("# TYPE stampede_requests_total counter"),
            text.rfind("# TYPE stampede_requests_total counter"));
  const std::string lint = promtool_lint(text);
  if (lint != "skip") EXPECT_EQ(lint, "");
}

TEST(LabMetrics, PortInUseIsExit2BeforeAnyInstanceStarts) {
  const LoopbackListener taken = listen_loopback();
  const auto r = run_command({STAMPEDE_BINARY, "lab", "-t", "0.2", "--metrics-listen",
                              "127.0.0.1:" + std::to_string(taken.port)},
                             20s);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.rfind("stampede: --metrics-listen: cannot listen on 127.0.0.1:", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;  // no "lab: " line
}

}  // namespace
}  // namespace stampede::testing
