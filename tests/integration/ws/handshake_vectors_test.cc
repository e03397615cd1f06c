// The WebSocket handshake vectors of tests/vectors/ws/handshakes.json.
// "server": the upgrade request goes to the in-process test server (one for the binary), whole
// and one byte at a time; its answer must have the vector's status, carry its "headers" lines
// and none of its "absent" fields.
// "client": the generator's ws:// client (one message) meets a scripted server whose answer to
// the upgrade is the vector's "reply" ({accept}: the right Sec-WebSocket-Accept for the key the
// client sent) followed by the "then" bytes (hex); the run must count exactly one error, the
// vector's "counted" (as in RunResult::error_codes).
#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loadgen/runner.h"
#include "raw_ws.h"
#include "server/server.h"
#include "support/in_process.h"
#include "support/scripted_server.h"
#include "support/vector_files.h"
#include "ws/handshake.h"

namespace stampede::testing {
namespace {

struct HandshakeVector {
  std::string name;
  bool server = true;
  // server
  std::string request;
  int status = 0;
  std::vector<std::string> headers;
  std::vector<std::string> absent;
  // client
  std::string reply;
  std::string then;  // bytes
  bool close_after = false;
  std::string counted;
};

std::vector<HandshakeVector> load_handshake_vectors() {
  const nlohmann::json doc = vector_file("ws/handshakes.json");
  std::vector<HandshakeVector> vectors;
  for (const nlohmann::json& j : doc) {
    HandshakeVector v;
    v.name = j.at("name").get<std::string>();
    v.server = j.at("kind").get<std::string>() == "server";
    if (v.server) {
      v.request = j.at("request").get<std::string>();
      v.status = j.at("status").get<int>();
      v.headers = j.value("headers", std::vector<std::string>{});
      v.absent = j.value("absent", std::vector<std::string>{});
    } else {
      v.reply = j.at("reply").get<std::string>();
      v.then = bytes_of_hex(j.value("then", std::string()));
      v.close_after = j.value("close_after", false);
      v.counted = j.at("counted").get<std::string>();
    }
    vectors.push_back(std::move(v));
  }
  return vectors;
}

std::string lower(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

class WsHandshakeVectors : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = start_server(); }
  static void TearDownTestSuite() {
    if (server_) server_->stop();
    server_.reset();
  }

  // The head of the server's answer to `request`, sent whole or one byte at a time.
  static std::string answer_to(const std::string& request, bool byte_by_byte) {
    RawWs ws(server_->port(), std::chrono::milliseconds(3000));
    EXPECT_TRUE(ws.connected());
    if (!byte_by_byte) {
      ws.send(request);
    } else {
      ws.send_at_once();
      for (char c : request) {
        if (!ws.send(std::string_view(&c, 1))) break;  // the server may close at a refusal
      }
    }
    return ws.read_until("\r\n\r\n");
  }

  static inline std::unique_ptr<server::Server> server_;
};

TEST_F(WsHandshakeVectors, ServerAnswersEachRequestWholeAndByteByByte) {
  ASSERT_TRUE(server_);
  std::size_t count = 0;
  for (const HandshakeVector& v : load_handshake_vectors()) {
    if (!v.server) continue;
    ++count;
    SCOPED_TRACE(v.name);
    for (bool byte_by_byte : {false, true}) {
      const std::string head = answer_to(v.request, byte_by_byte);
      const std::string expected = "HTTP/1.1 " + std::to_string(v.status) + " ";
      EXPECT_EQ(head.rfind(expected, 0), 0u) << (byte_by_byte ? "byte by byte" : "whole") << ":\n"
                                             << head;
      for (const std::string& line : v.headers)
        EXPECT_NE(head.find("\r\n" + line + "\r\n"), std::string::npos) << line << " in\n" << head;
      for (const std::string& name : v.absent)
        EXPECT_EQ(lower(head).find("\r\n" + lower(name) + ":"), std::string::npos) << head;
    }
  }
  EXPECT_GE(count, 30u);
}

TEST_F(WsHandshakeVectors, GeneratorCountsEachAnswer) {
  std::mutex mutex;
  const HandshakeVector* current = nullptr;
  ScriptedServer scripted([&](std::uint64_t, const std::string& request) {
    std::lock_guard lock(mutex);
    ScriptedReply reply;
    if (current == nullptr) return reply;
    const std::string field = "Sec-WebSocket-Key: ";
    const std::size_t at = request.find(field);
    const std::string key =
        at == std::string::npos
            ? std::string()
            : request.substr(at + field.size(), request.find("\r\n", at) - at - field.size());
    reply.bytes = current->reply;
    const std::size_t slot = reply.bytes.find("{accept}");
    if (slot != std::string::npos) reply.bytes.replace(slot, 8, ws::accept_for(key));
    reply.bytes += current->then;
    reply.half_close_after = current->close_after;  // EOF, never a reset (the client may write)
    return reply;
  });
  std::size_t count = 0;
  for (const HandshakeVector& v : load_handshake_vectors()) {
    if (v.server) continue;
    ++count;
    SCOPED_TRACE(v.name);
    {
      std::lock_guard lock(mutex);
      current = &v;
    }
    const loadgen::RunResult r = must_run(one_core_config(
        "ws://127.0.0.1:" + std::to_string(scripted.port()) + "/", 1, 1, std::chrono::seconds(5)));
    EXPECT_EQ(r.total_requests, 1u);
    EXPECT_EQ(r.total_errors, 1u);
    const std::map<std::string, std::uint64_t> expected = {{v.counted, 1}};
    std::map<std::string, std::uint64_t> counted(r.error_codes.begin(), r.error_codes.end());
    EXPECT_EQ(counted, expected);
  }
  std::lock_guard lock(mutex);
  current = nullptr;
  EXPECT_GE(count, 15u);
}

}  // namespace
}  // namespace stampede::testing
