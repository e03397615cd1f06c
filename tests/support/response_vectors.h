// The response vectors of tests/vectors/http/responses.json, as the integration tests that replay
// them from a backend read them: the bytes a backend sends and what the balancer and the
// generator must make of them. (The differential test reads the same file for the parser's
// verdict and h11's.) Vector strings hold one character per byte (U+0000..U+00FF).
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/process.h"
#include "support/scripted_server.h"

namespace stampede::testing {

inline const std::string kResponseVectorFile =
    std::string(STAMPEDE_SOURCE_DIR) + "/tests/vectors/http/responses.json";

// JSON strings hold one character per byte (U+0000..U+00FF); nlohmann gives them as UTF-8.
inline std::string latin1_bytes(const std::string& utf8) {
  std::string out;
  for (std::size_t i = 0; i < utf8.size(); ++i) {
    const auto c = static_cast<unsigned char>(utf8[i]);
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else if (i + 1 < utf8.size()) {
      // Two-byte sequences only: code points up to U+00FF.
      const auto next = static_cast<unsigned char>(utf8[++i]);
      out.push_back(static_cast<char>(((c & 0x03) << 6) | (next & 0x3f)));
    }
  }
  return out;
}

struct ResponseVector {
  std::string name;
  std::string bytes;      // what the backend sends, then closes when `eof`
  bool eof = false;       // the backend closes the connection after the bytes
  bool head = false;      // the answer to a HEAD request
  std::string balancer;   // "NNN": relayed with that status; "502": the balancer's own 502;
                          // "refuse": its 502, or the client connection cut after the head
  std::string generator;  // "NNN": counted as that status; else the error code ("EPROTO")
  bool reuse = false;     // the balancer may pool the backend connection afterwards
  bool has_body = false;  // `body` is given: the relayed response's body, de-chunked
  std::string body;
  std::string absent;  // bytes that must never reach the client (data after the response)
};

inline std::vector<ResponseVector> load_response_vectors() {
  const nlohmann::json doc = nlohmann::json::parse(read_file(kResponseVectorFile));
  std::vector<ResponseVector> out;
  for (const nlohmann::json& v : doc) {
    ResponseVector r;
    r.name = v.at("name");
    r.bytes = latin1_bytes(v.at("bytes"));
    r.eof = v.value("eof", false);
    r.head = v.value("method", "GET") == "HEAD";
    r.balancer = v.at("balancer");
    r.generator = v.at("generator");
    r.reuse = v.value("reuse", false);
    r.has_body = v.contains("body");
    if (r.has_body) r.body = latin1_bytes(v.at("body"));
    r.absent = latin1_bytes(v.value("absent", ""));
    out.push_back(std::move(r));
  }
  return out;
}

// How a backend sends a vector: whole (one send) or split (one byte per send; vectors over
// kSplitBytes in kSplitBytes pieces of equal size, to bound the sends of the 64 KiB heads).
enum class SendMode { Whole, Split };
inline constexpr std::size_t kSplitBytes = 4096;

inline std::size_t piece_for(const ResponseVector& v, SendMode mode) {
  if (mode == SendMode::Whole) return 0;
  return v.bytes.size() <= kSplitBytes ? 1 : (v.bytes.size() + kSplitBytes - 1) / kSplitBytes;
}

// The path that asks a vector_reply backend for vector `index`, sent in `mode`.
inline std::string vector_path(std::size_t index, SendMode mode) {
  return "/v/" + std::to_string(index) + (mode == SendMode::Whole ? "/w" : "/s");
}

// A ScriptedServer's answer to `request`: for "GET /v/INDEX/MODE" (vector_path) vector INDEX of
// `vectors`, whole (w) or split (s); to anything else 200 "OK" (ok_reply).
inline ScriptedReply vector_reply(const std::vector<ResponseVector>& vectors,
                                  const std::string& request) {
  unsigned index = 0;
  char mode = 'w';
  const std::size_t path = request.find(" /v/");
  if (path == std::string::npos ||
      std::sscanf(request.c_str() + path, " /v/%u/%c", &index, &mode) != 2 ||
      index >= vectors.size()) {
    return ok_reply(request);
  }
  const ResponseVector& v = vectors[index];
  ScriptedReply reply{v.bytes, v.eof};
  reply.piece = piece_for(v, mode == 's' ? SendMode::Split : SendMode::Whole);
  return reply;
}

}  // namespace stampede::testing
