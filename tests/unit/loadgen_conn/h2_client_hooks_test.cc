// The HTTP/2 client with a RequestHook, over a TestStream against nghttp2's own server session:
// generated requests reach the server as generated (fields and body), what HTTP/2 cannot carry
// is a named error and takes no stream, on_outcome sees status, headers, body and failures by
// name, a verdict counts under its code, and a hook that halts stops the run.
#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "h2_client_harness.h"
#include "loadgen/h2_generated.h"
#include "loadgen/hooks.h"

namespace stampede::loadgen {
namespace {

// What the hook saw of one outcome (copied: the views last only for the call).
struct Seen {
  std::uint64_t index = 0;
  int status = 0;
  std::string failure;
  std::string body;
  std::optional<std::string> answer;  // the captured x-answer
  bool has_response = false;
  std::int64_t latency_ns = 0;
};

class FakeHook final : public RequestHook {
 public:
  Generated generate(std::uint64_t index, std::string& out) override {
    if (fails && fails(index)) return {false, false, "hook failed"};
    out = make(index);
    return {true, false, {}};
  }
  std::string_view on_outcome(const RequestOutcome& o) override {
    Seen s{o.index,
           o.status,
           std::string(o.failure),
           std::string(o.body),
           std::nullopt,
           o.response != nullptr,
           o.latency_ns};
    if (o.response) {
      if (auto v = o.response->header("X-Answer")) s.answer = std::string(*v);
    }
    seen.push_back(s);
    verdict = judge ? judge(s) : std::string();
    if (halt_after != 0 && o.index >= halt_after) halt = true;
    return verdict;
  }
  bool halted() const override { return halt; }

  std::function<std::string(std::uint64_t)> make;
  std::function<bool(std::uint64_t)> fails;
  std::function<std::string(const Seen&)> judge;
  std::uint64_t halt_after = 0;  // halted() from the outcome of this index on
  bool halt = false;
  std::vector<Seen> seen;
  std::string verdict;
};

class H2ClientHooks : public H2ClientOverStream {
 protected:
  H2ClientHooks() {
    set_.capture_headers = {"x-answer"};
    context_.hook_set = &set_;
    context_.hook = &hook_;
  }
  void stop_run() override { ++stops_; }

  HookSet set_;
  FakeHook hook_;
  int stops_ = 0;
};

std::string post(std::uint64_t i) {
  const std::string body = "body-" + std::to_string(i);
  return "POST /items/" + std::to_string(i) +
         "?q=1 HTTP/1.1\r\nHost: target\r\nX-Id: " + std::to_string(i) +
         "\r\nConnection: keep-alive\r\nContent-Type: text/plain\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

TEST_F(H2ClientHooks, GeneratedRequestsReachTheServerAsGenerated) {
  set_.generates = true;
  hook_.make = post;
  auto client = start(12, 4);
  converse(*client, [] { return answering(0); });
  ASSERT_TRUE(client->finished());
  EXPECT_EQ(stats_.status_count(200), 12u);
  EXPECT_EQ(stats_.errors(), 0u);
  const ScriptedH2Server& server = *servers_.at(0);
  EXPECT_EQ(server.max_open, 4u);
  ASSERT_EQ(server.received.size(), 12u);
  std::set<std::string> ids;
  for (const auto& [stream, got] : server.received) {
    ASSERT_EQ(got.fields.size(), 7u) << stream;
    const std::string id = got.fields[4].second;
    ids.insert(id);
    using F = std::pair<std::string, std::string>;
    EXPECT_EQ(got.fields[0], (F{":method", "POST"}));
    EXPECT_EQ(got.fields[1], (F{":scheme", "http"}));
    EXPECT_EQ(got.fields[2], (F{":authority", "target"}));
    EXPECT_EQ(got.fields[3], (F{":path", "/items/" + id + "?q=1"}));
    EXPECT_EQ(got.fields[4].first, "x-id");
    EXPECT_EQ(got.fields[5], (F{"content-type", "text/plain"}));
    EXPECT_EQ(got.fields[6], (F{"content-length", std::to_string(got.body.size())}));
    EXPECT_EQ(got.body, "body-" + id);
  }
  EXPECT_EQ(ids.size(), 12u);
}

// Each kind of request the client does not send counts once under its name, takes no stream,
// and the run goes on to its exact count.
TEST_F(H2ClientHooks, RequestsHttp2CannotCarryAreNamedErrorsAndNotSent) {
  set_.generates = true;
  hook_.fails = [](std::uint64_t i) { return i % 6 == 5; };
  hook_.make = [](std::uint64_t i) -> std::string {
    switch (i % 6) {
      case 1:
        return "\x16\x03\x01garbage";
      case 2:
        return "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n";
      case 3:
        return "";
      case 4:
        return "GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + std::string(kMaxGeneratedHead, 'x') +
               "\r\n\r\n";
      default:
        return post(i);
    }
  };
  auto client = start(30, 2);
  converse(*client, [] { return answering(0); });
  ASSERT_TRUE(client->finished());
  EXPECT_EQ(stats_.requests(), 30u);
  EXPECT_EQ(stats_.status_count(200), 5u);
  EXPECT_EQ(custom(kRequestMalformed), 10u);  // garbage and empty
  EXPECT_EQ(custom(kRequestNotForH2), 5u);
  EXPECT_EQ(custom(kRequestTooLarge), 5u);
  EXPECT_EQ(custom("hook failed"), 5u);
  EXPECT_EQ(stats_.errors(), 25u);
  EXPECT_EQ(servers_.at(0)->requests, 5u);  // nothing else reached the server
  EXPECT_EQ(stats_.connections(), 1u);
  EXPECT_EQ(hook_.seen.size(), 5u);  // on_outcome only for what was sent
}

TEST_F(H2ClientHooks, OutcomesSeeStatusHeadersAndBodyAndAVerdictCountsUnderItsCode) {
  set_.capture_body = true;
  hook_.judge = [](const Seen& s) { return s.answer == "no" ? std::string("BAD") : std::string(); };
  auto client = start(10, 4);
  converse(*client, scripted([](ScriptedH2Server& s, std::int32_t id) {
    // Streams 1, 5, 9...: "no"; the others "yes", in two fields joined as HTTP/1.1 joins them.
    if ((id / 2) % 2 == 0) {
      s.answer_with(id, 200, {{"x-answer", "no"}});
    } else {
      s.answer_with(id, 201, {{"x-answer", "y"}, {"x-other", "1"}, {"x-answer", "es"}});
    }
  }));
  ASSERT_TRUE(client->finished());
  EXPECT_EQ(stats_.requests(), 10u);
  EXPECT_EQ(custom("BAD"), 5u);
  EXPECT_EQ(stats_.status_count(201), 5u);
  EXPECT_EQ(stats_.errors(), 5u);
  ASSERT_EQ(hook_.seen.size(), 10u);
  std::set<std::uint64_t> indexes;
  for (const Seen& s : hook_.seen) {
    indexes.insert(s.index);
    EXPECT_TRUE(s.has_response);
    EXPECT_EQ(s.body, "hello");
    EXPECT_GT(s.latency_ns, 0);
    ASSERT_TRUE(s.answer.has_value());
    EXPECT_EQ(*s.answer, s.status == 200 ? "no" : "y, es");
  }
  EXPECT_EQ(indexes.size(), 10u);
}

TEST_F(H2ClientHooks, AResetStreamReachesTheHookByNameWithoutAResponse) {
  auto client = start(3, 1);
  converse(*client, scripted([](ScriptedH2Server& s, std::int32_t id) {
    s.reset(id, NGHTTP2_REFUSED_STREAM);
  }));
  ASSERT_TRUE(client->finished());
  ASSERT_EQ(hook_.seen.size(), 3u);
  for (const Seen& s : hook_.seen) {
    EXPECT_EQ(s.status, 0);
    EXPECT_EQ(s.failure, "RST_STREAM REFUSED_STREAM");
    EXPECT_FALSE(s.has_response);
  }
  EXPECT_EQ(custom("RST_STREAM REFUSED_STREAM"), 3u);
}

TEST_F(H2ClientHooks, AHookThatHaltsStopsTheRun) {
  hook_.halt_after = 2;
  auto client = start(2, 1);
  converse(*client, [] { return answering(0); });
  ASSERT_TRUE(client->finished());
  EXPECT_EQ(hook_.seen.size(), 2u);
  EXPECT_EQ(stops_, 1);  // after the second outcome, not the first
}

TEST_F(H2ClientHooks, AGenerateThatHaltsStopsTheRun) {
  set_.generates = true;
  hook_.fails = [this](std::uint64_t) {
    hook_.halt = true;
    return true;
  };
  auto client = start(1, 1);
  EXPECT_EQ(stops_, 1);
  EXPECT_EQ(custom("hook failed"), 1u);
  EXPECT_TRUE(loop_->expire_next_timer());  // the pause; then the owner says stop
  EXPECT_TRUE(client->finished());
  EXPECT_TRUE(shared_.streams.empty());  // no socket for a request not made
}

}  // namespace
}  // namespace stampede::loadgen
