// Parse once: a run's configuration goes from the command line into the engine through
// prepare() alone. The engine takes the Plan as it is (it never reads the Config's text again),
// and an https run builds one TLS client context.
#include "loadgen/plan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/generator.h"
#include "loadgen/runner.h"
#include "support/counting_tls_contexts.h"
#include "support/generator_refusal.h"
#include "support/in_process.h"
#include "support/temp_dir.h"

namespace stampede::loadgen {
namespace {

// The command line's plan for `args` (a fresh folder for .loadtestrc).
Expected<CliRequest> planned_command_line(const std::vector<std::string>& args) {
  const testing::TempDir dir;
  return testing::generator_command_line(args, dir.path());
}

// The Config's text is parsed by prepare() only: a run of a plan whose Config text has since
// become garbage (URL, proxy, TLS options) still goes where the plan says.
TEST(Plan, TheEngineNeverParsesTheConfigAgain) {
  auto server = testing::start_server();
  ASSERT_TRUE(server);
  const std::string url = "http://127.0.0.1:" + std::to_string(server->port()) + "/";
  auto request = planned_command_line({"-n", "4", "-c", "1", "-k", "--cores", "1", "--quiet", url});
  ASSERT_TRUE(request.ok()) << request.error().message;
  Plan& plan = request->plan;
  plan.config.url = "not a URL";
  plan.config.proxy = "not a proxy";
  plan.config.secure_protocol = "no such protocol";
  plan.config.cert_file = "/nonexistent/cert.pem";
  auto r = run(plan);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->total_requests, 4u);
  EXPECT_EQ(r->total_errors, 0u);
  EXPECT_EQ(r->status_counts[200], 4u);
  EXPECT_EQ(r->url, "not a URL");  // what the report shows is the text as given
}

// https: one client context from the command line to the end of the run (there were three: one
// thrown away by the command line's check, one by run()'s, one kept).
TEST(Plan, AnHttpsRunBuildsOneTlsContext) {
  auto server =
      testing::start_server_with([](server::ServerOptions& o) { o.tls_self_signed = true; });
  ASSERT_TRUE(server);
  const std::string url = "https://127.0.0.1:" + std::to_string(server->port()) + "/";
  const int before = test::tls_contexts_made.load();
  auto request = planned_command_line(
      {"-n", "2", "-c", "1", "-k", "--cores", "1", "--quiet", "--insecure", url});
  ASSERT_TRUE(request.ok()) << request.error().message;
  auto r = run(request->plan);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status_counts[200], 2u);
  EXPECT_EQ(test::tls_contexts_made.load() - before, 1);
}

}  // namespace
}  // namespace stampede::loadgen
