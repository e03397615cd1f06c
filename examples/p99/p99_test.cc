// Fails when the service's 99th percentile latency is over its budget. The service here is
// stampede's own test server, started in-process on a free port; point `url` at yours.
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include <stampede/stampede.h>

namespace {

constexpr double kP99BudgetMs = 250;

TEST(Service, P99WithinBudget) {
  stampede::ServerHandle service = stampede::start_server({});

  stampede::LoadTestOptions options;
  options.url = "http://127.0.0.1:" + std::to_string(service.port()) + "/";
  options.max_requests = 500;
  options.concurrency = 4;
  options.keep_alive = true;
  options.timeout = std::chrono::seconds(5);

  const stampede::Result result = stampede::load_test(options);
  result.show(std::cout);

  EXPECT_EQ(result.total_requests, 500u);
  EXPECT_EQ(result.total_errors, 0u);
  EXPECT_LE(result.percentile(99), kP99BudgetMs);
}

}  // namespace
