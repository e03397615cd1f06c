// Differential framing test: every vector of tests/vectors/http/*.json (kVectorFiles) goes through
// our parsers (whole, split at every byte, byte by byte) and through h11, a second, strict parser
// (h11_verdicts.py). The files give our expected verdict ("ok" or the error status) for each;
// where h11's accept/reject verdict differs from ours, the vector says why ("differs"), and a
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
#include "support/response_vectors.h"

namespace stampede::http {
namespace {

const std::string kVectorDir = std::string(STAMPEDE_SOURCE_DIR) + "/tests/vectors/http/";
// framing.json: requests and responses at the parser level; requests.json: the request corpus
// that tests/integration/balancer/request_vectors_test.cc also sends to serve and balance;
// responses.json: responses that the balancer and the generator also get from a backend
// (tests/integration/balancer/response_vectors_test.cc, tests/integration/loadgen/vectors_test.cc).
const std::vector<std::string> kVectorFiles = {
    kVectorDir + "framing.json", kVectorDir + "requests.json", kVectorDir + "responses.json"};
const std::string kH11Script =
    std::string(STAMPEDE_SOURCE_DIR) + "/tests/unit/http/h11_verdicts.py";

struct Vector {
  std::string name;
  std::string kind;  // "request" or "response"
  std::string bytes;
  std::string ours;     // "ok" or the error status
  std::string differs;  // why h11's verdict differs; empty when it agrees
  bool head = false;    // a response to HEAD ("method": "HEAD"): no body whatever it says
};

std::vector<Vector> load_vectors() {
  std::vector<Vector> out;
  for (const std::string& file : kVectorFiles) {
    const nlohmann::json doc = nlohmann::json::parse(stampede::testing::read_file(file));
    for (const nlohmann::json& v : doc) {
      const nlohmann::json& ours = v.at("ours");
      out.push_back({v.at("name"), v.at("kind"), stampede::testing::latin1_bytes(v.at("bytes")),
                     ours.is_string() ? ours.get<std::string>() : std::to_string(ours.get<int>()),
                     v.value("differs", ""), v.value("method", "GET") == "HEAD"});
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
  const bool head = v.head;
  return verdict_of(testing::grind<ResponseParser>(
      v.bytes,
      [head] {
        ResponseParser parser;
        if (head) parser.expect_no_body();
        return parser;
      },
      describe_status<ResponseParser>, true, stride_for(v.bytes)));
}

std::map<std::string, std::string> h11_verdicts() {
  std::map<std::string, std::string> out;
  for (const std::string& file : kVectorFiles) {
    const stampede::testing::RunResult r = stampede::testing::run_command(
        {"/usr/bin/python3", kH11Script, file}, std::chrono::seconds(60));
    EXPECT_EQ(r.status, 0) << "h11_verdicts.py failed (apt-get install python3-h11): " << r.err;
    std::istringstream lines(r.out);
    std::string name, verdict;
    while (lines >> name >> verdict)
      out[name] = verdict;
  }
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
    EXPECT_EQ(ours, v.ours) << "VERDICT " << v.name << " ours " << ours << " listed " << v.ours;
    const auto it = h11.find(v.name);
    ASSERT_NE(it, h11.end());
    const bool we_accept = ours == "ok";
    const bool h11_accepts = it->second == "ok";
    if (v.differs.empty()) {
      EXPECT_EQ(we_accept, h11_accepts)
          << "H11 " << v.name << " h11 " << it->second << " ours " << ours;
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
