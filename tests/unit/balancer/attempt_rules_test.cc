// The rules of one attempt (attempt_rules.h), which ProxySession and H2Stream both apply: every
// cause against every request state that changes the verdict, and the I/O edge's classification.
#include "balancer/attempt_rules.h"

#include <errno.h>
#include <gtest/gtest.h>

#include <string_view>

namespace stampede::balancer {
namespace {

RetryState get(int retries = 1) {
  return {.idempotent = true, .resendable = true, .retries_left = retries};
}
RetryState post() {
  return {.idempotent = false, .resendable = false, .retries_left = 1};
}
// The client is answered `status` with `error`, naming the backend or not.
void expect_reply(const Verdict& v, int status, std::string_view error, bool names_backend) {
  EXPECT_EQ(v.next, Next::Reply);
  EXPECT_EQ(v.status, status);
  EXPECT_EQ(v.error, error);
  EXPECT_EQ(v.names_backend, names_backend);
}
constexpr bool kFresh = false;
constexpr bool kReused = true;

TEST(AttemptRules, NothingReachedTheBackendGoesElsewhereWhateverTheMethodAndSpendsNoRetry) {
  for (Cause cause : {Cause::Connect, Cause::NotSent}) {
    for (const RetryState& retry : {get(0), post()}) {
      const Verdict v = judge_failure(cause, kFresh, retry);
      EXPECT_EQ(v.next, Next::Retry);
      EXPECT_FALSE(v.spends_retry);
    }
  }
}

TEST(AttemptRules, AnUnansweredGetIsResentWhileRetriesLast) {
  const Verdict v = judge_failure(Cause::NoResponse, kFresh, get(1));
  EXPECT_EQ(v.next, Next::Retry);
  EXPECT_TRUE(v.spends_retry);
  expect_reply(judge_failure(Cause::NoResponse, kFresh, get(0)), 502, "backend unreachable", true);
}

TEST(AttemptRules, AnUnansweredPostIsNotResent) {
  expect_reply(judge_failure(Cause::NoResponse, kFresh, post()), 502, "backend unreachable", true);
}

TEST(AttemptRules, AStalePooledConnectionResendsFreshWithoutSpendingARetry) {
  RetryState spent_post = post();
  spent_post.retries_left = 0;
  EXPECT_EQ(judge_failure(Cause::NotSent, kReused, spent_post).next, Next::ResendFresh);
  EXPECT_EQ(judge_failure(Cause::NoResponse, kReused, spent_post).next, Next::Reply);  // taken
  RetryState put = spent_post;
  put.resendable = true;  // PUT, DELETE...: idempotent, not under --retries
  const Verdict v = judge_failure(Cause::NoResponse, kReused, put);
  EXPECT_EQ(v.next, Next::ResendFresh);
  EXPECT_FALSE(v.spends_retry);
}

TEST(AttemptRules, ARequestNoLongerWholeIsNeverRetried) {
  for (Cause cause : {Cause::Connect, Cause::NotSent, Cause::NoResponse}) {
    RetryState retry = get(3);
    retry.intact = false;
    EXPECT_EQ(judge_failure(cause, kFresh, retry).next, Next::Reply);
    EXPECT_EQ(judge_failure(cause, kReused, retry).next, Next::Reply);
  }
}

TEST(AttemptRules, TimeoutsBadResponsesAndLocalFailuresAnswerTheClient) {
  for (bool reused : {kFresh, kReused}) {
    expect_reply(judge_failure(Cause::Timeout, reused, get(3)), 504, "backend timeout", true);
    expect_reply(judge_failure(Cause::BadResponse, reused, get(3)), 502, "bad backend response",
                 true);
    expect_reply(judge_failure(Cause::Local, reused, get(3)), 503, "local resources exhausted",
                 false);
  }
}

TEST(AttemptRules, NoLiveBackend) {
  expect_reply(judge_no_backend(false), 503, "no backend", false);
  expect_reply(judge_no_backend(true), 502, "backend unreachable", true);
}

TEST(AttemptRules, TheIoEdgeClassifiesFailures) {
  EXPECT_EQ(connect_failure(ECONNREFUSED).cause, Cause::Connect);
  EXPECT_TRUE(connect_failure(ECONNREFUSED).mark_down);
  EXPECT_EQ(connect_failure(EMFILE).cause, Cause::Local);
  EXPECT_FALSE(connect_failure(EMFILE).mark_down);

  const AttemptProgress fresh{};
  const AttemptProgress reused_wrote{.reused = true, .wrote = true};
  EXPECT_EQ(write_failure(fresh, EPIPE).cause, Cause::NotSent);
  EXPECT_TRUE(write_failure(fresh, EPIPE).mark_down);
  EXPECT_FALSE(write_failure(fresh, EIO).mark_down);
  EXPECT_EQ(write_failure(reused_wrote, ECONNRESET).cause, Cause::NoResponse);
  EXPECT_FALSE(write_failure(reused_wrote, ECONNRESET).mark_down);  // a stale pooled one

  const AttemptProgress answering{.wrote = true, .resp_started = true};
  EXPECT_EQ(read_failure(fresh, true, 0).cause, Cause::NoResponse);
  EXPECT_FALSE(read_failure(fresh, true, 0).mark_down);  // a refused reconnect will say
  EXPECT_EQ(read_failure(answering, true, 0).cause, Cause::BadResponse);
  EXPECT_TRUE(read_failure(fresh, false, ECONNRESET).mark_down);
  EXPECT_FALSE(read_failure(reused_wrote, false, ECONNRESET).mark_down);
  EXPECT_FALSE(read_failure(fresh, false, EPIPE).mark_down);  // only a reset marks down
}

}  // namespace
}  // namespace stampede::balancer
