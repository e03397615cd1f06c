// The response vectors (tests/vectors/http/responses.json) from a backend through the balancer,
// each sent whole and split (one byte per send): the client gets the relayed response, the
// balancer's own 502, or (once the head was relayed) a cut connection, as the vector says; the
// bad bytes and the bytes after a response never reach it; /lb-stats counts the exchange
// (responses or failures and bad_responses); and a backend connection is pooled again only after
// a clean response: after anything else the next request arrives on a new connection. One
// backend and one balancer for every vector; the request's path names the vector and the mode.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "lb_support.h"
#include "support/response_vectors.h"
#include "support/scripted_server.h"

namespace stampede::balancer::testing {
namespace {

using stampede::testing::ResponseVector;
using stampede::testing::ScriptedReply;
using stampede::testing::ScriptedServer;
using stampede::testing::SendMode;
using Clock = std::chrono::steady_clock;

constexpr char kBadResponseBody[] = "{\"error\":\"bad backend response\"}";

struct Counts {
  std::uint64_t sent, responses, failures, bad_responses, in_flight;
};

Counts counts_of(const Balancer& lb) {
  const nlohmann::json s = backend_stats(lb, "a");
  return {s["sent"].get<std::uint64_t>(), s["responses"].get<std::uint64_t>(),
          s["failures"].get<std::uint64_t>(), s["bad_responses"].get<std::uint64_t>(),
          s["in_flight"].get<std::uint64_t>()};
}

class BalancerVectors : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    vectors_ = new std::vector<ResponseVector>(stampede::testing::load_response_vectors());
    backend_ = new ScriptedServer([](std::uint64_t, const std::string& request) {
      return stampede::testing::vector_reply(*vectors_, request);
    });
    lb_ = start_balancer(base_config({spec("a", backend_->port())})).release();
  }
  static void TearDownTestSuite() {
    delete lb_;
    delete backend_;
    delete vectors_;
  }

  // Sends vector `index` in `mode` through the balancer and checks everything the file says.
  void check(std::size_t index, SendMode mode);

  static std::vector<ResponseVector>* vectors_;
  static ScriptedServer* backend_;
  static Balancer* lb_;
};

std::vector<ResponseVector>* BalancerVectors::vectors_ = nullptr;
ScriptedServer* BalancerVectors::backend_ = nullptr;
Balancer* BalancerVectors::lb_ = nullptr;

// A control request on a fresh client connection: the backend's plain 200 "OK".
::testing::AssertionResult control(std::uint16_t port) {
  auto r = http_get(port, "/control");
  if (!r) return ::testing::AssertionFailure() << "control request: no response";
  if (r->status != 200 || r->body != "OK") {
    return ::testing::AssertionFailure() << "control request: " << r->status << " " << r->body;
  }
  return ::testing::AssertionSuccess();
}

void BalancerVectors::check(std::size_t index, SendMode mode) {
  const ResponseVector& v = (*vectors_)[index];
  SCOPED_TRACE(v.name + (mode == SendMode::Whole ? " (whole)" : " (split)"));
  const std::uint64_t settled = backend_->replies_settled();
  const std::uint64_t requests = backend_->requests();
  const std::uint64_t connections = backend_->connections();
  const Counts before = counts_of(*lb_);

  Client client(lb_->port());
  ASSERT_TRUE(client.connected());
  const std::string method = v.head ? "HEAD" : "GET";
  const std::string target = stampede::testing::vector_path(index, mode);
  ASSERT_TRUE(client.send(method + " " + target + " HTTP/1.1\r\nHost: lb\r\n\r\n"));
  const Clock::time_point start = Clock::now();
  const std::optional<Response> r = client.read_response(v.head);
  const bool relayed = v.balancer != "502" && v.balancer != "refuse";
  if (relayed) {
    ASSERT_TRUE(r) << "no response";
    EXPECT_EQ(std::to_string(r->status), v.balancer);
    EXPECT_EQ(r->header("x-backend"), "a");
    if (v.has_body) {
      EXPECT_EQ(r->body, v.body);
    }
  } else if (r || v.balancer == "502") {
    ASSERT_TRUE(r) << "no 502";
    EXPECT_EQ(r->status, 502);
    EXPECT_EQ(r->body, kBadResponseBody);
  } else {
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(3)) << "a timeout, not a cut";
  }
  if (r && !v.absent.empty()) {
    EXPECT_EQ(r->raw.find(v.absent), std::string::npos);
  }

  // The backend has written all it will; the balancer has its bytes (and any FIN) queued
  // before the control request's.
  ASSERT_TRUE(backend_->wait_settled(settled + 1, std::chrono::seconds(5)));
  EXPECT_EQ(backend_->requests(), requests + 1);
  EXPECT_EQ(backend_->connections(), connections) << "the pooled connection was not used";
  ASSERT_TRUE(control(lb_->port()));
  EXPECT_EQ(backend_->requests(), requests + 2);
  EXPECT_EQ(backend_->connections(), connections + (v.reuse ? 0 : 1))
      << (v.reuse ? "a clean response's connection was not pooled"
                  : "a connection was pooled after a bad or unfinished response");

  const Counts after = counts_of(*lb_);
  EXPECT_EQ(after.sent - before.sent, 2u);
  EXPECT_EQ(after.responses - before.responses, relayed ? 2u : 1u);
  EXPECT_EQ(after.failures - before.failures, relayed ? 0u : 1u);
  EXPECT_EQ(after.bad_responses - before.bad_responses, relayed ? 0u : 1u);
  EXPECT_EQ(after.in_flight, 0u);
}

TEST_F(BalancerVectors, EachWholeAndSplit) {
  ASSERT_NE(lb_, nullptr);
  ASSERT_GE(vectors_->size(), 110u);
  // The first vector then finds a pooled connection, as every later one does.
  ASSERT_TRUE(control(lb_->port()));
  for (std::size_t i = 0; i < vectors_->size(); ++i) {
    check(i, SendMode::Whole);
    check(i, SendMode::Split);
  }
}

}  // namespace
}  // namespace stampede::balancer::testing
