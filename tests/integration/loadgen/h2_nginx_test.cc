// --http2 against a server no one here wrote: nginx (Debian's, http2 module on) answering h2c
// with prior knowledge (support/nginx.h). Exact counts on both sides: what the generator reports
// and what nginx logged, one access-log line per request, each over HTTP/2.0.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "loadgen/report/text.h"
#include "support/in_process.h"
#include "support/nginx.h"

namespace stampede::loadgen {
namespace {

// The lines of nginx's access log, and those of them that name HTTP/2.0 as the protocol
// ("GET / HTTP/2.0" in the combined format).
struct AccessLines {
  std::size_t all = 0, http2 = 0;
};

AccessLines count_access_lines(const std::string& log) {
  AccessLines out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    ++out.all;
    if (line.find("\"GET / HTTP/2.0\" 200 ") != std::string::npos) ++out.http2;
  }
  return out;
}

TEST(Http2AgainstNginx, ExactCountsOnBothSides) {
  if (!testing::Nginx::installed()) GTEST_SKIP() << "nginx is not installed (make test-deps)";
  testing::Nginx nginx({testing::NginxOptions::Listen::H2c, "", "", true});
  ASSERT_TRUE(nginx.ready()) << nginx.error_log();
  Config c;
  c.url = nginx.url();
  c.http2 = true;
  c.max_requests = 500;
  c.concurrency = 4;
  c.streams = 8;
  c.cores = 1;
  c.timeout = std::chrono::seconds(10);
  const RunResult r = testing::must_run(c);
  nginx.stop();  // nginx writes a request's line after its answer: read the log once it is down
  EXPECT_EQ(r.total_requests, 500u);
  EXPECT_EQ(r.total_errors, 0u) << nginx.error_log();
  EXPECT_EQ(r.status_counts.at(200), 500u);
  EXPECT_EQ(r.connections_opened, 4u);
  EXPECT_TRUE(r.h2.rst_stream.empty());
  ASSERT_TRUE(r.h2.server_settings.has_value());
  EXPECT_EQ(r.h2.server_settings->max_concurrent_streams, 128u);  // nginx's default
  const AccessLines lines = count_access_lines(nginx.access_log());
  EXPECT_EQ(lines.all, 500u);
  EXPECT_EQ(lines.http2, 500u);
  std::ostringstream text;
  write_text_report(r, text);
  EXPECT_NE(text.str().find("Completed requests:  500\n"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("Total errors:        0\n"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("Streams/connection:  8\n"), std::string::npos) << text.str();
}

}  // namespace
}  // namespace stampede::loadgen
