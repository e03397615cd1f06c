// Parse once, for the server and the balancer: their configuration goes from an entry point
// (the command line and --config, the C++ API, the tests) into the engine through prepare()
// alone. The engines take only a plan (a compile-time fact, below), never parse or check the
// configuration's text again, and every refusal comes from prepare(), in one wording.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "balancer/balancer.h"
#include "balancer/plan.h"
#include "cli/balance.h"
#include "cli/serve.h"
#include "server/plan.h"
#include "server/server.h"
#include "stampede/server.h"
#include "support/counting_tls_contexts.h"
#include "support/credential_files.h"
#include "support/temp_dir.h"

namespace stampede {
namespace {

static_assert(std::is_same_v<decltype(&server::Server::start),
                             Expected<std::unique_ptr<server::Server>> (*)(server::ServerPlan)>,
              "the server starts from a plan only");
static_assert(
    std::is_same_v<decltype(&balancer::Balancer::start),
                   Expected<std::unique_ptr<balancer::Balancer>> (*)(balancer::BalancerPlan)>,
    "the balancer starts from a plan only");

Expected<server::CliOptions> serve_command_line(std::vector<std::string> args) {
  args.insert(args.begin(), "serve");
  return server::parse_command_line(args);
}

// --tls-cert: one server context from the command line to the listening server (the command
// line built one to check the files and threw it away, then start() built another).
TEST(ServePlan, TheCommandLineToTheServerBuildsOneTlsContext) {
  const testing::CredentialFiles files;
  const int before = test::tls_contexts_made.load();
  auto cli = serve_command_line({"--port", "0", "--cores", "1", "--quiet", "--tls-cert",
                                 files.cert(), "--tls-key", files.key()});
  ASSERT_TRUE(cli) << cli.error().message;
  ASSERT_TRUE(cli->plan.secure());
  auto started = server::Server::start(std::move(cli->plan));
  ASSERT_TRUE(started) << started.error().message;
  EXPECT_NE((*started)->port(), 0);
  EXPECT_EQ(test::tls_contexts_made.load() - before, 1);
  (*started)->stop();
}

// The options' text is read by prepare() only: a plan whose files and limits have since become
// garbage still starts, with what prepare() read.
TEST(ServePlan, TheServerNeverChecksTheOptionsAgain) {
  const testing::TempDir dir;
  std::ofstream(dir.file("body.txt")) << "hello";
  server::ServerOptions options;
  options.port = 0;
  options.cores = 1;
  options.body_file = dir.file("body.txt");
  auto plan = server::prepare(options);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->content.body, "hello");
  EXPECT_EQ(plan->content.content_type, "text/plain");
  plan->options.body_file = "/nonexistent/body";
  plan->options.tls_cert_file = "/nonexistent/cert.pem";  // no key: refused by prepare()
  plan->options.max_header_bytes = 1;
  auto started = server::Server::start(std::move(plan).value());
  ASSERT_TRUE(started) << started.error().message;
  EXPECT_NE((*started)->port(), 0);
  (*started)->stop();
}

// The command line and the C++ API refuse the same bad input with the same line (the command
// line used to word a bad --error and an out-of-range --cores its own way).
TEST(ServePlan, TheCommandLineAndTheApiRefuseInOneWording) {
  struct Case {
    std::vector<std::string> args;
    void (*set)(ServerOptions&);
  };
  const Case cases[] = {
      {{"-e", "42"}, [](ServerOptions& o) { o.error_status = 42; }},
      {{"-e", "600"}, [](ServerOptions& o) { o.error_status = 600; }},
      {{"-P", "101"}, [](ServerOptions& o) { o.error_percent = 101; }},
      {{"-c", "2000"}, [](ServerOptions& o) { o.cores = 2000; }},
      {{"--id", "a b"}, [](ServerOptions& o) { o.id = "a b"; }},
      {{"--host", "a b"}, [](ServerOptions& o) { o.host = "a b"; }},
  };
  for (const Case& c : cases) {
    auto cli = serve_command_line(c.args);
    ASSERT_FALSE(cli) << c.args[0];
    ServerOptions api;
    api.port = 0;
    c.set(api);
    std::string api_error;
    try {
      start_server(api);
    } catch (const Error& e) {
      api_error = e.what();
    }
    EXPECT_EQ(cli.error().message, api_error) << c.args[0];
  }
}

// The configuration's text is read by prepare() only: a plan whose addresses have since become
// garbage still starts where the plan says.
TEST(BalancePlan, TheBalancerNeverParsesTheConfigAgain) {
  balancer::BalancerConfig config;
  config.listen = "127.0.0.1:0";
  config.backends = {{"a", "127.0.0.1:9", 1, false}};
  auto plan = balancer::prepare(config);
  ASSERT_TRUE(plan) << plan.error().message;
  plan->config.listen = "not an address";
  plan->config.backends[0].address = "not an address either";
  auto started = balancer::Balancer::start(std::move(plan).value());
  ASSERT_TRUE(started) << started.error().message;
  EXPECT_NE((*started)->port(), 0);
  EXPECT_TRUE((*started)->backend_live("a"));
  (*started)->stop();
}

// Every refusal of `stampede balance` is prepare()'s: the command line prints, for bad settings,
// the line prepare() gives for the same settings from a --config file.
TEST(BalancePlan, TheCommandLineRefusesInPreparesWords) {
  struct Case {
    std::vector<std::string> args;
    std::string json;
  };
  const Case cases[] = {
      {{"--backend", "a=127.0.0.1:1", "--backend", "a=127.0.0.1:2"},
       R"({"backend": ["a=127.0.0.1:1", "a=127.0.0.1:2"]})"},
      {{"--backend", "a=127.0.0.1:0"}, R"({"backend": ["a=127.0.0.1:0"]})"},
      {{"--backend", "a=127.0.0.1:1", "--sticky-header", "x y"},
       R"({"backend": ["a=127.0.0.1:1"], "sticky-header": "x y"})"},
      {{"--backend", "a=https://127.0.0.1:1", "--backend-ca", "/nonexistent/ca.pem"},
       R"({"backend": ["a=https://127.0.0.1:1"], "backend-ca": "/nonexistent/ca.pem"})"},
      {{"--listen", "nowhere"}, R"({"listen": "nowhere"})"},
  };
  for (const Case& c : cases) {
    auto config = balancer::parse_config_json(c.json);
    ASSERT_TRUE(config) << config.error().message;
    auto plan = balancer::prepare(*config);
    ASSERT_FALSE(plan) << c.json;
    std::vector<std::string> args = c.args;
    args.insert(args.begin(), "balance");
    std::vector<char*> argv;
    for (auto& a : args)
      argv.push_back(a.data());
    ::testing::internal::CaptureStderr();
    const int code = balancer::cli_main(static_cast<int>(argv.size()), argv.data());
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(code, 2) << c.json;
    EXPECT_EQ(err, "stampede: " + plan.error().message + "\n") << c.json;
  }
}

}  // namespace
}  // namespace stampede
