// Differential framing test: every vector of tests/vectors/http/{framing,requests}.json goes
// through our parsers (whole, split at every byte, byte by byte) and through h11, a second, strict
// parser (h11_verdicts.py). The file gives our expected verdict ("ok" or the error status) for
// each; where h11's accept/reject verdict differs from ours, the vector says why ("differs"), and a
// listed difference that no longer holds fails too, so the list stays true.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "grind.h"
#include "http/request_parser.h"
#include "http/response_parser.h"
#include "support/process.h"

namespace stampede::http {
namespace {

const std::string kVectorDir = std::string(STAMPEDE_SOURCE_DIR) + "/tests/vectors/http/";
// framing.json: request and response framing; requests.json: the request corpus that
// tests/integration/balancer/vectors_test.cc also sends to serve and balance.
const std::vector<std::string> kVectorFiles = {kVectorDir + "framing.json",
                                               kVectorDir + "requests.json"};
const std::string kH11Script =
    std::string(STAMPEDE_SOURCE_DIR) + "/tests/unit/http/h11_verdicts.py";

struct Vector {
  std::string name;
  std::string kind;  // "request" or "response"
  std::string bytes;
  std::string ours;     // "ok" or the error status
  std::string differs;  // why h11's verdict differs; empty when it agrees
};

// JSON strings hold one character per byte (U+0000..U+00FF); nlohmann gives them as UTF-8.
std::string latin1_bytes(const std::string& utf8) {
  std::string out;
  for (std::size_t i = 0; i < utf8.size(); ++i) {
    const auto c = static_cast<unsigned char>(utf8[i]);
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else {
      // Two-byte sequences only: code points up to U+00FF.
      const auto next = static_cast<unsigned char>(utf8[++i]);
      out.push_back(static_cast<char>(((c & 0x03) << 6) | (next & 0x3f)));
    }
  }
  return out;
}

std::vector<Vector> load_vectors() {
  std::vector<Vector> out;
  for (const std::string& file : kVectorFiles) {
    const nlohmann::json doc = nlohmann::json::parse(stampede::testing::read_file(file));
    for (const nlohmann::json& v : doc) {
      const nlohmann::json& ours = v.at("ours");
      out.push_back({v.at("name"), v.at("kind"), latin1_bytes(v.at("bytes")),
                     ours.is_string() ? ours.get<std::string>() : std::to_string(ours.get<int>()),
                     v.value("differs", "")});
    }
  }
  return out;
}

template <class Parser>
std::string describe_status(const Parser&) {
  return "";
}

// Our verdict from a trace: "ok" when a message completed before any error, else the status.
std::string verdict_of(const testing::Trace& trace) {
  for (const std::string& line : trace) {
    if (line.rfind("msg@", 0) == 0) return "ok";
    if (line.rfind("error ", 0) == 0) return line.substr(6);
  }
  return "incomplete";
}

// Splitting a 70 KiB vector at every byte costs seconds; big ones are split every `stride`.
std::size_t stride_for(const std::string& bytes) {
  return std::max<std::size_t>(1, bytes.size() / 256);
}

std::string our_verdict(const Vector& v) {
  if (v.kind == "request") {
    return verdict_of(testing::grind<RequestParser>(
        v.bytes, [] { return RequestParser(); }, describe_status<RequestParser>, true,
        stride_for(v.bytes)));
  }
  return verdict_of(testing::grind<ResponseParser>(
      v.bytes, [] { return ResponseParser(); }, describe_status<ResponseParser>, true,
      stride_for(v.bytes)));
}

std::map<std::string, std::string> h11_verdicts() {
  std::vector<std::string> argv = {"/usr/bin/python3", kH11Script};
  argv.insert(argv.end(), kVectorFiles.begin(), kVectorFiles.end());
  const stampede::testing::RunResult r =
      stampede::testing::run_command(argv, std::chrono::seconds(60));
  EXPECT_EQ(r.status, 0) << "h11_verdicts.py failed (apt-get install python3-h11): " << r.err;
  std::map<std::string, std::string> out;
  std::istringstream lines(r.out);
  std::string name, verdict;
  while (lines >> name >> verdict)
    out[name] = verdict;
  return out;
}

TEST(Differential, OurVerdictsAsListedAndH11AgreesUnlessListed) {
  const std::vector<Vector> vectors = load_vectors();
  ASSERT_GE(vectors.size(), 400u);
  const std::map<std::string, std::string> h11 = h11_verdicts();
  ASSERT_EQ(h11.size(), vectors.size());
  for (const Vector& v : vectors) {
    SCOPED_TRACE(v.name);
    const std::string ours = our_verdict(v);
    EXPECT_EQ(ours, v.ours);
    const auto it = h11.find(v.name);
    ASSERT_NE(it, h11.end());
    const bool we_accept = ours == "ok";
    const bool h11_accepts = it->second == "ok";
    if (v.differs.empty()) {
      EXPECT_EQ(we_accept, h11_accepts) << "h11: " << it->second << ", ours: " << ours;
    } else {
      EXPECT_NE(we_accept, h11_accepts) << "listed as a difference, but both say " << ours;
    }
  }
}

TEST(Differential, VectorNamesAreUnique) {
  std::map<std::string, int> seen;
  for (const Vector& v : load_vectors())
    EXPECT_EQ(++seen[v.name], 1) << v.name;
}

}  // namespace
}  // namespace stampede::http
