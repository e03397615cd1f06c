// The WebSocket frame vectors of tests/vectors/ws/frames.json through ws::Session: each fed
// whole, split at every byte into two reads, and byte by byte; every way must deliver the
// vector's messages, write its frames (our echoes, pongs and closes) and end with its failure
// code and received close code. The handler echoes every message, as `stampede serve` does, or
// ("handler": "close") closes with 1011 on the first one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/vector_files.h"
#include "support/ws_frames.h"
#include "ws/session.h"

namespace stampede::ws {
namespace {

struct FrameVector {
  std::string name;
  Role role = Role::Server;
  std::string bytes;
  std::uint64_t limit = 0;  // 0: the default message limit
  bool close_on_message = false;
  std::vector<std::string> delivered;
  std::vector<std::string> sent;
  int failure = 0;
  int received = 0;  // the peer's close code, 0 when no close arrived
};

// Printable ASCII as it is, every other byte as \xHH (the vectors' notation for payloads).
std::string escaped_payload(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f && c != '\\') {
      out += c;
    } else {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

// "text Hello", "pong pi", "close 1000 bye", "close" (no code), "opcode 3 x".
std::string described(const testing::ParsedWsFrame& f) {
  switch (f.opcode) {
    case 0x1:
      return "text " + escaped_payload(f.payload);
    case 0x2:
      return "binary " + escaped_payload(f.payload);
    case 0x9:
      return "ping " + escaped_payload(f.payload);
    case 0xA:
      return "pong " + escaped_payload(f.payload);
    case 0x8: {
      if (f.payload.size() < 2)
        return f.payload.empty() ? "close" : "close " + escaped_payload(f.payload);
      const int code =
          static_cast<unsigned char>(f.payload[0]) << 8 | static_cast<unsigned char>(f.payload[1]);
      const std::string reason = escaped_payload(std::string_view(f.payload).substr(2));
      return "close " + std::to_string(code) + (reason.empty() ? "" : " " + reason);
    }
    default:
      return "opcode " + std::to_string(f.opcode) + " " + escaped_payload(f.payload);
  }
}

std::vector<FrameVector> load_frame_vectors() {
  const nlohmann::json doc = testing::vector_file("ws/frames.json");
  std::vector<FrameVector> vectors;
  for (const nlohmann::json& j : doc) {
    FrameVector v;
    v.name = j.at("name").get<std::string>();
    const std::string role = j.at("role").get<std::string>();
    EXPECT_TRUE(role == "server" || role == "client") << v.name;
    v.role = role == "client" ? Role::Client : Role::Server;
    v.bytes = testing::bytes_of_hex(j.at("bytes").get<std::string>());
    v.limit = j.value("limit", std::uint64_t{0});
    v.close_on_message = j.value("handler", std::string("echo")) == "close";
    v.delivered = j.at("delivered").get<std::vector<std::string>>();
    v.sent = j.at("sent").get<std::vector<std::string>>();
    v.failure = j.at("failure").get<int>();
    v.received = j.value("received", 0);
    vectors.push_back(std::move(v));
  }
  return vectors;
}

struct VectorHandler : SessionHandler {
  Session* session = nullptr;
  bool close_on_message = false;
  std::vector<std::string> delivered;
  void on_message(const Message& m) override {
    delivered.push_back((m.text ? "text " : "binary ") + escaped_payload(m.payload));
    if (close_on_message) {
      session->close(kCloseInternalError, "ERROR");
    } else {
      session->send(m);
    }
  }
};

// What one run did, in the vectors' terms.
struct Outcome {
  std::vector<std::string> delivered;
  std::vector<std::string> sent;
  int failure = 0;
  int received = 0;
  std::size_t trailing = 0;  // output bytes that are no whole frame (must be 0)
  bool operator==(const Outcome&) const = default;
};

std::ostream& operator<<(std::ostream& out, const Outcome& o) {
  out << "delivered [";
  for (const auto& m : o.delivered)
    out << " '" << m << "'";
  out << " ] sent [";
  for (const auto& f : o.sent)
    out << " '" << f << "'";
  return out << " ] failure " << o.failure << " received " << o.received << " trailing "
             << o.trailing;
}

// Feeds `v.bytes` cut before each offset in `cuts` (ascending).
Outcome run_vector(const FrameVector& v, const std::vector<std::size_t>& cuts) {
  VectorHandler handler;
  handler.close_on_message = v.close_on_message;
  SessionLimits limits;
  if (v.limit != 0) limits.max_message_bytes = v.limit;
  Session session(v.role, handler, limits);
  handler.session = &session;
  EXPECT_TRUE(session.reset(9));
  std::string output;
  std::size_t start = 0;
  auto feed_to = [&](std::size_t end) {
    EXPECT_TRUE(session.feed(v.bytes.data() + start, end - start));
    output += session.output();
    session.consume_output(session.output().size());
    start = end;
  };
  for (std::size_t cut : cuts)
    feed_to(cut);
  feed_to(v.bytes.size());
  Outcome o;
  o.delivered = handler.delivered;
  for (const auto& f : testing::ws_parse_frames(output, &o.trailing)) {
    o.sent.push_back(described(f));
    // Our frames are masked exactly when we are the client (RFC 6455 5.1).
    EXPECT_EQ(f.masked, v.role == Role::Client) << v.name << ": " << described(f);
  }
  o.failure = session.failure();
  o.received = session.close_received() ? session.received_code() : 0;
  return o;
}

TEST(WsFrameVectors, EveryVectorWholeSplitAndByteByByte) {
  const std::vector<FrameVector> vectors = load_frame_vectors();
  ASSERT_GE(vectors.size(), 60u);
  for (const FrameVector& v : vectors) {
    SCOPED_TRACE(v.name);
    Outcome expected;
    expected.delivered = v.delivered;
    expected.sent = v.sent;
    expected.failure = v.failure;
    expected.received = v.received;
    EXPECT_EQ(run_vector(v, {}), expected) << "fed whole";
    for (std::size_t cut = 1; cut < v.bytes.size(); ++cut) {
      const Outcome split = run_vector(v, {cut});
      EXPECT_EQ(split, expected) << "split at " << cut;
      if (split != expected) break;  // one report per vector is enough
    }
    std::vector<std::size_t> every;
    for (std::size_t i = 1; i < v.bytes.size(); ++i)
      every.push_back(i);
    EXPECT_EQ(run_vector(v, every), expected) << "byte by byte";
  }
}

TEST(WsFrameVectors, NamesAreUnique) {
  std::vector<std::string> names;
  for (const FrameVector& v : load_frame_vectors())
    names.push_back(v.name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
}

}  // namespace
}  // namespace stampede::ws
