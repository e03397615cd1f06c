// WithServer: a GoogleTest fixture whose every test has the test server (test_server.h) on a free
// loopback port in server_: one with the default options, started before the test, unless the
// test puts one with options of its own in its place (ASSERT_TRUE(restart_with(...))). A test
// suite takes it by name: `using ServerWs = WithServer;` then TEST_F(ServerWs, ...).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "server/server.h"
#include "support/test_server.h"

namespace stampede::testing {

class WithServer : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = start_server();
    ASSERT_TRUE(server_);
  }

  // Replaces the server with one whose options `set` changes from the defaults; false (and a
  // test failure) when it does not start.
  bool restart_with(const std::function<void(server::ServerOptions&)>& set) {
    server_ = start_server_with(set);
    return server_ != nullptr;
  }

  std::unique_ptr<server::Server> server_;
};

}  // namespace stampede::testing
