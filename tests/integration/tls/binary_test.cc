// `stampede serve` with TLS and the generator on https:// as a user runs them: reports, exit
// codes and one-line errors for bad certificate files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/process.h"
#include "support/temp_dir.h"
#include "tls/self_signed.h"
#include "tls_support.h"

namespace stampede::testing {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(TlsBinary, TextAndJsonReportsSayHowManySessionsResumed) {
  TlsServe serve;
  ASSERT_GT(serve.port, 0);
  RunResult r = run_stampede(
      {"-k", "-n", "100", "-c", "5", "--cores", "1", "--quiet", "--insecure", serve.url()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Completed requests:  100\n"));
  EXPECT_THAT(r.out, HasSubstr("Total errors:        0\n"));
  EXPECT_THAT(r.out, HasSubstr("TLS sessions resumed: 0 of 5 handshakes\n"));

  const auto j = json_report_of_20(serve.url());
  ASSERT_TRUE(j);
  EXPECT_EQ((*j)["tlsHandshakes"], 20);
  EXPECT_EQ((*j)["tlsSessionsResumed"], 18);
}

TEST(TlsBinary, VerificationFailureIsReportedByName) {
  TlsServe serve;
  ASSERT_GT(serve.port, 0);
  const RunResult r = run_stampede({"-n", "4", "-c", "2", "--cores", "1", "--quiet", serve.url()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Total errors:        4\n"));
  EXPECT_THAT(r.out, HasSubstr(" CERT_VERIFY_FAILED:   4 errors\n"));
}

TEST(TlsBinary, ServeRefusesBadCertificateFilesWithOneLine) {
  const TempDir temp_dir;
  const std::string& dir = temp_dir.path();
  const auto a = tls::make_self_signed().value();
  const auto b = tls::make_self_signed().value();
  std::ofstream(dir + "/cert.pem") << a.cert_pem;
  std::ofstream(dir + "/other-key.pem") << b.key_pem;
  std::ofstream(dir + "/junk.pem") << "not PEM at all\n";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--tls-cert", "/nonexistent/cert.pem", "--tls-key", "/nonexistent/key.pem"},
       "cannot read certificate file '/nonexistent/cert.pem'"},
      {{"--tls-cert", dir + "/cert.pem", "--tls-key", dir + "/other-key.pem"}, "does not match"},
      {{"--tls-cert", dir + "/junk.pem", "--tls-key", dir + "/other-key.pem"}, "no certificate"},
      {{"--tls-cert", dir + "/cert.pem"}, "--tls-cert and --tls-key go together"},
      {{"--tls-self-signed", "--tls-cert", dir + "/cert.pem", "--tls-key", dir + "/cert.pem"},
       "exclude each other"},
  };
  for (const auto& [args, message] : cases) {
    std::vector<std::string> argv = {"serve", "--port", "0"};
    argv.insert(argv.end(), args.begin(), args.end());
    const RunResult r = run_stampede(argv, milliseconds(10000));
    const std::string shown = ::testing::PrintToString(args);
    EXPECT_EQ(r.status, 2) << shown;
    EXPECT_THAT(r.err, StartsWith("stampede: ")) << shown;
    EXPECT_THAT(r.err, HasSubstr(message)) << shown << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << shown << r.err;
  }
}

}  // namespace
}  // namespace stampede::testing
