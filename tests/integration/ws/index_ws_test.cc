// --index on ws:// runs: each message carries its own permit's index, checked on what a
// recording server received; an index parameter in a WebSocket URL is refused.
#include <gtest/gtest.h>

#include <charconv>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "loadgen/runner.h"
#include "recording_ws.h"
#include "support/in_process.h"

namespace stampede::loadgen {
namespace {

Config index_ws_config(std::uint16_t port) {
  Config c = testing::one_core_config("ws://127.0.0.1:" + std::to_string(port) + "/chat", 200, 4,
                                      std::chrono::seconds(5));
  c.index_param = "IDX";
  return c;
}

// The number in `text` at `at` (all digits up to the next non-digit), or nullopt.
std::optional<std::uint64_t> number_at(std::string_view text, std::size_t at, std::size_t& end) {
  end = at;
  while (end < text.size() && text[end] >= '0' && text[end] <= '9')
    ++end;
  std::uint64_t n = 0;
  if (end == at ||
      std::from_chars(text.data() + at, text.data() + end, n).ptr != text.data() + end) {
    return std::nullopt;
  }
  return n;
}

// "id=N;again=N" with the same N twice: N, else nullopt.
std::optional<std::uint64_t> index_of(std::string_view message) {
  constexpr std::string_view kHead = "id=", kMiddle = ";again=";
  if (message.substr(0, kHead.size()) != kHead) return std::nullopt;
  std::size_t end = 0;
  const auto first = number_at(message, kHead.size(), end);
  if (!first || message.substr(end, kMiddle.size()) != kMiddle) return std::nullopt;
  const auto second = number_at(message, end + kMiddle.size(), end);
  if (!second || end != message.size() || *second != *first) return std::nullopt;
  return first;
}

// One worker hands out the indexes 1..N (as for HTTP requests): every one reaches the server
// exactly once, in a message of its own, both occurrences replaced.
TEST(LoadgenWsIndex, EveryMessageCarriesItsOwnIndex) {
  testing::RecordingWsServer server;
  ASSERT_NE(server.port(), 0);
  Config c = index_ws_config(server.port());
  c.body = "id=IDX;again=IDX";
  const RunResult r = testing::must_run(c);
  EXPECT_EQ(r.total_requests, 200u);
  EXPECT_EQ(r.total_errors, 0u);
  EXPECT_EQ(r.ws.messages, 200u);
  const auto messages = server.messages();
  ASSERT_EQ(messages.size(), 200u);
  std::set<std::uint64_t> seen;
  for (const auto& m : messages) {
    EXPECT_TRUE(m.text) << m.payload;
    const auto index = index_of(m.payload);
    ASSERT_TRUE(index) << "not id=N;again=N: " << m.payload;
    EXPECT_TRUE(seen.insert(*index).second) << "index " << *index << " sent twice";
  }
  ASSERT_EQ(seen.size(), 200u);
  EXPECT_EQ(*seen.begin(), 1u);
  EXPECT_EQ(*seen.rbegin(), 200u);  // with 200 distinct ones: exactly 1..200
}

// Two workers share the numbering: still one per message, never twice, exactly 1..200.
TEST(LoadgenWsIndex, IndexesStayUniqueAcrossWorkers) {
  testing::RecordingWsServer server;
  ASSERT_NE(server.port(), 0);
  Config c = index_ws_config(server.port());
  c.cores = 2;
  c.body = "id=IDX;again=IDX";
  const RunResult r = testing::must_run(c);
  EXPECT_EQ(r.total_errors, 0u);
  const auto messages = server.messages();
  ASSERT_EQ(messages.size(), 200u);
  std::set<std::uint64_t> seen;
  for (const auto& m : messages) {
    const auto index = index_of(m.payload);
    ASSERT_TRUE(index) << m.payload;
    EXPECT_GE(*index, 1u);
    EXPECT_TRUE(seen.insert(*index).second) << "index " << *index << " sent twice";
  }
  ASSERT_EQ(seen.size(), 200u);
  EXPECT_EQ(*seen.begin(), 1u);
  EXPECT_EQ(*seen.rbegin(), 200u);
}

// A message that is not UTF-8 goes as binary, its index replaced all the same; without the
// parameter in it (or without --index) the message goes as it is.
TEST(LoadgenWsIndex, BinaryAndFixedMessages) {
  testing::RecordingWsServer server;
  ASSERT_NE(server.port(), 0);
  Config c = index_ws_config(server.port());
  c.max_requests = 20;
  c.body = std::string("\xff#IDX", 5);
  EXPECT_EQ(testing::must_run(c).total_errors, 0u);
  std::set<std::string> binary;
  for (const auto& m : server.messages()) {
    EXPECT_FALSE(m.text);
    binary.insert(m.payload);
  }
  EXPECT_EQ(binary.size(), 20u);
  EXPECT_TRUE(binary.count(std::string("\xff#17", 4)));

  testing::RecordingWsServer fixed_server;
  ASSERT_NE(fixed_server.port(), 0);
  c = index_ws_config(fixed_server.port());
  c.max_requests = 10;
  c.body = "no parameter here";
  EXPECT_EQ(testing::must_run(c).total_errors, 0u);
  c.index_param.clear();
  c.body = "IDX";
  EXPECT_EQ(testing::must_run(c).total_errors, 0u);
  const auto messages = fixed_server.messages();
  ASSERT_EQ(messages.size(), 20u);
  for (std::size_t i = 0; i < messages.size(); ++i) {
    EXPECT_TRUE(messages[i].text);
    EXPECT_EQ(messages[i].payload, i < 10 ? "no parameter here" : "IDX") << i;
  }
}

// The URL goes once per connection: a parameter in its path or query is refused before
// anything is sent, by run() as by the command line (prepare()).
TEST(LoadgenWsIndex, ParameterInTheUrlIsRefused) {
  testing::RecordingWsServer server;
  ASSERT_NE(server.port(), 0);
  const std::string expected =
      "--index: 'IDX' is in the URL, but a WebSocket URL is sent once per connection: put it in "
      "the message (--data, -P, -p FILE)";
  for (const std::string target : {"/chat/IDX", "/chat?id=IDX"}) {
    Config c = index_ws_config(server.port());
    c.url = "ws://127.0.0.1:" + std::to_string(server.port()) + target;
    const auto valid = prepare(c);
    ASSERT_FALSE(valid) << target;
    EXPECT_EQ(valid.error().message, expected);
    const auto r = run(c);
    ASSERT_FALSE(r) << target;
    EXPECT_EQ(r.error().message, expected);
    c.url = "wss://127.0.0.1:" + std::to_string(server.port()) + target;
    EXPECT_FALSE(prepare(c).ok()) << target;
    c.url = "http://127.0.0.1:" + std::to_string(server.port()) + target;
    EXPECT_TRUE(prepare(c).ok()) << target;  // HTTP sends the URL with each request
  }
  EXPECT_TRUE(server.messages().empty());
}

}  // namespace
}  // namespace stampede::loadgen
