#include "cli/generator.h"
#include "generator_fixture.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/process.h"

namespace stampede::loadgen {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class Cli : public GeneratorCommandLine {
 protected:
  std::string write_file(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
};

constexpr const char* kUrl = "http://127.0.0.1:8080/path?q=1";

TEST_F(Cli, DefaultsAreLoadtests) {
  Config c = config({kUrl});
  EXPECT_EQ(c.url, kUrl);
  EXPECT_EQ(c.concurrency, 10u);
  EXPECT_EQ(c.max_requests, 0u);
  EXPECT_EQ(c.max_duration.count(), 0);
  EXPECT_EQ(c.effective_duration(), seconds(10));
  EXPECT_FALSE(c.keep_alive);
  EXPECT_EQ(c.method, "GET");
  EXPECT_FALSE(c.body.has_value());
  EXPECT_EQ(c.cores, default_cores());
  EXPECT_GE(c.cores, 1u);
  EXPECT_EQ(c.timeout.count(), 0);
  const CliSettings s = settings({kUrl});
  EXPECT_FALSE(s.quiet);
  EXPECT_FALSE(s.json);
}

TEST_F(Cli, OptionsGoBeforeOrAfterTheUrl) {
  Config c = config({"-n", "500", kUrl, "-c", "3", "-k", "-t", "2.5", "--cores", "2"});
  EXPECT_EQ(c.max_requests, 500u);
  EXPECT_EQ(c.concurrency, 3u);
  EXPECT_TRUE(c.keep_alive);
  EXPECT_EQ(c.max_duration, milliseconds(2500));
  EXPECT_EQ(c.cores, 2u);
  EXPECT_EQ(c.effective_duration(), milliseconds(2500));
}

TEST_F(Cli, MaxRequestsAloneHasNoTimeLimit) {
  Config c = config({kUrl, "-n", "10k"});
  EXPECT_EQ(c.max_requests, 10000u);
  EXPECT_EQ(c.effective_duration().count(), 0);
}

TEST_F(Cli, KeepAliveHasThreeSpellings) {
  EXPECT_TRUE(config({kUrl, "-k"}).keep_alive);
  EXPECT_TRUE(config({kUrl, "--keepalive"}).keep_alive);
  EXPECT_TRUE(config({kUrl, "--agent"}).keep_alive);
}

TEST_F(Cli, HeadersAreLowerCasedTrimmedAndTheLastValueWins) {
  Config c = config({kUrl, "-H", "Authorization: Basic xx==", "-H", "X-A:1", "-H", "x-a: 2"});
  ASSERT_EQ(c.headers.size(), 2u);
  EXPECT_EQ(c.headers[0], (std::pair<std::string, std::string>{"authorization", "Basic xx=="}));
  EXPECT_EQ(c.headers[1], (std::pair<std::string, std::string>{"x-a", "2"}));
}

TEST_F(Cli, CookiesAreRepeatable) {
  Config c = config({kUrl, "-C", "a=1", "-C", "b=two"});
  EXPECT_EQ(c.cookies, (std::vector<std::string>{"a=1", "b=two"}));
}

TEST_F(Cli, MethodIsUpperCased) {
  EXPECT_EQ(config({kUrl, "-m", "post"}).method, "POST");
  EXPECT_EQ(config({kUrl, "-m", "Delete"}).method, "DELETE");
}

TEST_F(Cli, BodiesSetTheirMethods) {
  Config post = config({kUrl, "-P", "{\"a\":1}", "-T", "application/json"});
  EXPECT_EQ(post.method, "POST");
  EXPECT_EQ(post.body, "{\"a\":1}");
  EXPECT_EQ(post.content_type, "application/json");
  Config patch = config({kUrl, "-A", "x"});
  EXPECT_EQ(patch.method, "PATCH");
  EXPECT_EQ(patch.body, "x");
  Config data = config({kUrl, "--data", "d", "-m", "put"});
  EXPECT_EQ(data.method, "PUT");
  EXPECT_EQ(data.body, "d");
  EXPECT_EQ(config({kUrl, "--data", "d"}).method, "GET");
}

TEST_F(Cli, BodyFilesAreRead) {
  const std::string file = write_file("body.txt", "file body\n");
  Config post = config({kUrl, "-p", file});
  EXPECT_EQ(post.method, "POST");
  EXPECT_EQ(post.body, "file body\n");
  Config put = config({kUrl, "-u", file});
  EXPECT_EQ(put.method, "PUT");
  EXPECT_EQ(put.body, "file body\n");
  Config patch = config({kUrl, "-a", file});
  EXPECT_EQ(patch.method, "PATCH");
  EXPECT_EQ(patch.body, "file body\n");
}

TEST_F(Cli, OtherOptions) {
  const std::vector<std::string> args = {
      kUrl,      "-d",     "250", "--index",        "ID",
      "--quiet", "--json", "-r",  "--count-header", "X-Instance"};
  Config c = config(args);
  EXPECT_EQ(c.timeout, milliseconds(250));
  EXPECT_EQ(c.index_param, "ID");
  const CliSettings s = settings(args);
  EXPECT_TRUE(s.quiet);
  EXPECT_TRUE(s.json);
  EXPECT_EQ(c.count_headers, (std::vector<std::string>{"x-instance"}));
  EXPECT_EQ(config({kUrl, "--timeout", "1s"}).timeout, seconds(1));
}

TEST_F(Cli, VersionAndHelp) {
  auto v = parse({"-V"});
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->action, CliRequest::Action::Version);
  EXPECT_EQ(parse({"--version"})->action, CliRequest::Action::Version);
  auto h = parse({"--help"});
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->action, CliRequest::Action::Help);
  EXPECT_THAT(h->text, HasSubstr("--keepalive"));
  EXPECT_THAT(h->text, HasSubstr("--timeout"));
  EXPECT_EQ(parse({"-h"})->action, CliRequest::Action::Help);
}

// Every scheme the generator speaks is accepted, with the TLS options for the secure ones.
TEST_F(Cli, EverySupportedScheme) {
  for (const char* url : {"http://127.0.0.1/", "https://127.0.0.1/", "ws://127.0.0.1/chat",
                          "wss://127.0.0.1/chat", "WSS://127.0.0.1:8443/"}) {
    EXPECT_EQ(config({url}).url, url);
  }
  const Config c = config({"wss://127.0.0.1/", "-k", "--insecure", "-s", "TLSv1_3_method"});
  EXPECT_TRUE(c.insecure);
  EXPECT_EQ(c.secure_protocol, "TLSv1_3_method");
  EXPECT_THAT(error({"wss://127.0.0.1/", "-s", "TLSv9_method"}),
              HasSubstr("unknown secure protocol 'TLSv9_method'"));
}

TEST_F(Cli, BadUrls) {
  EXPECT_THAT(error({}), HasSubstr("missing URL"));
  EXPECT_THAT(error({"-n", "5"}), HasSubstr("missing URL"));
  EXPECT_THAT(error({"http://"}), HasSubstr("host"));
  EXPECT_THAT(error({"127.0.0.1:8080"}), HasSubstr("scheme"));
  EXPECT_THAT(error({"gopher://127.0.0.1/"}), HasSubstr("unsupported scheme 'gopher'"));
  EXPECT_THAT(error({"ftp://127.0.0.1/"}), HasSubstr("unsupported scheme"));
  EXPECT_THAT(error({"http://127.0.0.1:99999/"}), HasSubstr("port"));
  EXPECT_THAT(error({kUrl, "http://other/"}), HasSubstr("unexpected argument 'http://other/'"));
}

TEST_F(Cli, UnknownFlags) {
  EXPECT_EQ(error({kUrl, "--foo"}), "unknown option '--foo'");
  EXPECT_EQ(error({"-Z", kUrl}), "unknown option '-Z'");
  EXPECT_EQ(error({kUrl, "--rate", "10"}), "unknown option '--rate'");
}

TEST_F(Cli, BadNumbers) {
  EXPECT_EQ(error({kUrl, "-n", "abc"}), "-n: not a number: 'abc'");
  EXPECT_EQ(error({kUrl, "-c", "0"}), "-c: must be at least 1, got '0'");
  EXPECT_EQ(error({kUrl, "--cores", "0"}), "--cores: must be at least 1, got '0'");
  EXPECT_EQ(error({kUrl, "-n"}), "option -n needs a value");
}

// Each bad value is refused by a line that starts with its option and what is wrong with it.
TEST_F(Cli, BadValuesNameTheirOption) {
  struct BadValue {
    const char* option;
    const char* value;
    const char* starts;
  };
  const BadValue cases[] = {
      {"-n", "-5", "-n: must not be negative"},
      {"-n", "1.5", "-n: not a whole number"},
      {"-c", "-1", "-c: must not be negative"},
      {"-c", "ten", "-c: not a number"},
      {"-t", "soon", "-t: not a duration"},
      {"-t", "-3", "-t: not a duration"},
      {"-d", "x", "--timeout: not a duration"},
      {"--timeout", "-1", "--timeout: not a duration"},
      {"-H", "novalue", "-H: malformed header 'novalue'"},
      {"-H", ": x", "-H: malformed header"},
      {"-H", "bad name: x", "-H: malformed header name"},
      {"-H", "x-a: b\r\nx-b: c", "-H: malformed header value"},
      {"-C", "novalue", "-C: malformed cookie 'novalue'"},
      {"-C", "=v", "-C: malformed cookie"},
      {"-m", "GE T", "-m: invalid method"},
      {"--count-header", "a b", "--count-header: invalid"},
  };
  for (const BadValue& c : cases) {
    SCOPED_TRACE(std::string(c.option) + " " + c.value);
    EXPECT_THAT(error({kUrl, c.option, c.value}), StartsWith(c.starts));
  }
}

TEST_F(Cli, HeadersTheRequestSetsAreRefused) {
  EXPECT_THAT(error({kUrl, "-H", "Content-Length: 5"}), HasSubstr("cannot be set"));
}

TEST_F(Cli, UnreadableBodyFile) {
  EXPECT_THAT(error({kUrl, "-p", dir_ + "/missing.json"}),
              StartsWith("-p: cannot read body file '" + dir_ + "/missing.json'"));
  EXPECT_THAT(error({kUrl, "-u", dir_}), StartsWith("-u: cannot read body file"));
}

TEST_F(Cli, LoadtestrcFillsWhatTheCommandLineDoesNotGive) {
  write_file(".loadtestrc", R"({"maxRequests": 100, "concurrency": 4, "agentKeepAlive": true,
      "headers": {"X-From-Rc": "rc", "x-both": "rc"}, "cookies": {"session": "abc"},
      "method": "put", "body": "rc body", "contentType": "application/json", "timeout": 300})");
  Config rc_only = config({kUrl});
  EXPECT_EQ(rc_only.max_requests, 100u);
  EXPECT_EQ(rc_only.concurrency, 4u);
  EXPECT_TRUE(rc_only.keep_alive);
  EXPECT_EQ(rc_only.method, "PUT");
  EXPECT_EQ(rc_only.body, "rc body");
  EXPECT_EQ(rc_only.content_type, "application/json");
  EXPECT_EQ(rc_only.timeout, milliseconds(300));
  EXPECT_EQ(rc_only.cookies, (std::vector<std::string>{"session=abc"}));

  Config both = config({kUrl, "-c", "2", "-H", "x-both: cli", "-P", "cli body", "-C", "c=1"});
  EXPECT_EQ(both.concurrency, 2u);
  EXPECT_EQ(both.max_requests, 100u);
  EXPECT_EQ(both.method, "POST");
  EXPECT_EQ(both.body, "cli body");
  EXPECT_EQ(both.cookies, (std::vector<std::string>{"c=1"}));
  ASSERT_EQ(both.headers.size(), 2u);
  EXPECT_EQ(both.headers[0], (std::pair<std::string, std::string>{"x-from-rc", "rc"}));
  EXPECT_EQ(both.headers[1], (std::pair<std::string, std::string>{"x-both", "cli"}));
}

TEST_F(Cli, InvalidLoadtestrc) {
  write_file(".loadtestrc", "{not json");
  EXPECT_EQ(error({kUrl}), ".loadtestrc: invalid JSON");
  write_file(".loadtestrc", R"({"maxRequests": "many"})");
  EXPECT_EQ(error({kUrl}), ".loadtestrc maxRequests: not a number: 'many'");
  write_file(".loadtestrc", R"({"concurrency": -2})");
  EXPECT_THAT(error({kUrl}), StartsWith(".loadtestrc concurrency: must not be negative"));
  write_file(".loadtestrc", R"({"agentKeepAlive": "yes"})");
  EXPECT_EQ(error({kUrl}), ".loadtestrc agentKeepAlive: expected true or false");
  write_file(".loadtestrc", R"({"maxRequsts": 5})");
  EXPECT_EQ(error({kUrl}), ".loadtestrc: unknown key 'maxRequsts'");
  write_file(".loadtestrc", R"({"requestGenerator": "gen.js"})");
  EXPECT_EQ(error({kUrl}), ".loadtestrc requestGenerator: not supported");
  write_file(".loadtestrc", R"([1, 2])");
  EXPECT_EQ(error({kUrl}), ".loadtestrc: expected a JSON object");
  write_file(".loadtestrc", R"({"headers": {"bad name": "x"}})");
  EXPECT_THAT(error({kUrl}), StartsWith(".loadtestrc headers: malformed header name"));
}

TEST_F(Cli, LoadtestrcNumbersMayBeStringsAndIgnoredKeysAreAccepted) {
  write_file(".loadtestrc", R"({"maxRequests": "250", "maxSeconds": 3, "delay": 10,
      "insecure": true, "recover": true, "indexParam": "ID", "requestsPerSecond": 0})");
  Config c = config({kUrl});
  EXPECT_EQ(c.max_requests, 250u);
  EXPECT_EQ(c.max_duration, seconds(3));
  EXPECT_EQ(c.index_param, "ID");
}

TEST_F(Cli, LoadtestrcFileBodyKeepsTheMethod) {
  const std::string file = write_file("payload", "from file");
  write_file(".loadtestrc", R"({"file": ")" + file + R"("})");
  Config c = config({kUrl});
  EXPECT_EQ(c.method, "GET");
  EXPECT_EQ(c.body, "from file");
}

TEST_F(Cli, TlsAndProxyOptions) {
  Config c = config({"https://127.0.0.1:8443/", "--insecure", "-s", "TLSv1_3_method", "--proxy",
                     "http://127.0.0.1:3128"});
  EXPECT_EQ(c.url, "https://127.0.0.1:8443/");
  EXPECT_TRUE(c.insecure);
  EXPECT_EQ(c.secure_protocol, "TLSv1_3_method");
  EXPECT_EQ(c.proxy, "http://127.0.0.1:3128");
  EXPECT_FALSE(config({"https://127.0.0.1/"}).insecure);
  EXPECT_THAT(error({"https://127.0.0.1/", "--secure-protocol", "SSLv3_method"}),
              HasSubstr("unknown secure protocol 'SSLv3_method'"));
  EXPECT_THAT(error({kUrl, "--proxy", "127.0.0.1:3128"}), HasSubstr("--proxy"));
}

TEST_F(Cli, LoadtestrcTlsAndProxyKeys) {
  write_file(".loadtestrc", R"({"insecure": true, "secureProtocol": "TLSv1_2_method",
      "proxy": "http://127.0.0.1:3128"})");
  Config c = config({"https://127.0.0.1/"});
  EXPECT_TRUE(c.insecure);
  EXPECT_EQ(c.secure_protocol, "TLSv1_2_method");
  EXPECT_EQ(c.proxy, "http://127.0.0.1:3128");
  c = config({"https://127.0.0.1/", "-s", "TLSv1_3_method", "--proxy", "http://127.0.0.1:1"});
  EXPECT_EQ(c.secure_protocol, "TLSv1_3_method");  // the command line wins
  EXPECT_EQ(c.proxy, "http://127.0.0.1:1");
  write_file(".loadtestrc", R"({"insecure": "yes"})");
  EXPECT_EQ(error({kUrl}), ".loadtestrc insecure: expected true or false");
  write_file(".loadtestrc", R"({"cert": "/nonexistent/c.pem", "key": "/nonexistent/k.pem"})");
  EXPECT_THAT(error({"https://127.0.0.1/"}), HasSubstr("cannot read certificate file"));
}

}  // namespace
}  // namespace stampede::loadgen
