#include "lab_support.h"

#include <gtest/gtest.h>

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include "net/socket.h"
#include "support/process.h"

namespace stampede::lab::testing {

LabRun run_lab(const std::vector<std::string>& args, std::chrono::milliseconds timeout) {
  std::vector<std::string> argv = {STAMPEDE_BINARY, "lab", "--json", "-q"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = stampede::testing::run_command(argv, timeout);
  LabRun run{r.status, r.out, r.err, nullptr};
  run.doc = nlohmann::json::parse(r.out, nullptr, false);
  if (run.doc.is_discarded()) run.doc = nullptr;
  return run;
}

const nlohmann::json& run_named(const nlohmann::json& doc, const std::string& label) {
  static const nlohmann::json none;
  if (doc.is_object() && doc.contains("runs")) {
    for (const auto& run : doc["runs"])
      if (run["label"] == label) return run;
  }
  ADD_FAILURE() << "no run " << label;
  return none;
}

std::map<std::string, std::uint64_t> counts(const nlohmann::json& run, const std::string& source) {
  std::map<std::string, std::uint64_t> out;
  if (!run.is_object()) return out;
  for (const auto& i : run["instances"])
    if (i[source].is_number()) out[i["name"]] = i[source].get<std::uint64_t>();
  return out;
}

void expect_round_robin_within_one_request(const nlohmann::json& doc, const std::string& label) {
  const auto& run = run_named(doc, label);
  const auto by_count = counts(run, "count");
  ASSERT_EQ(by_count.size(), 3u);
  EXPECT_EQ(by_count, counts(run, "x_instance"));
  EXPECT_EQ(by_count, counts(run, "x_backend"));
  std::uint64_t lo = UINT64_MAX, hi = 0;
  for (const auto& [name, n] : by_count) {
    lo = std::min(lo, n);
    hi = std::max(hi, n);
  }
  EXPECT_GT(lo, 100u);
  EXPECT_LE(hi - lo, 1u) << "round robin keeps the instances one request apart";
}

std::map<std::string, double> shares(const nlohmann::json& run) {
  std::map<std::string, double> out;
  if (!run.is_object()) return out;
  for (const auto& i : run["instances"])
    out[i["name"]] = i["share"].get<double>();
  return out;
}

std::vector<nlohmann::json> findings_of(const nlohmann::json& doc, const std::string& kind) {
  std::vector<nlohmann::json> out;
  if (!doc.is_object()) return out;
  for (const auto& f : doc["findings"])
    if (f["kind"] == kind) out.push_back(f);
  return out;
}

bool installed(const std::string& program) {
  for (const char* dir : {"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"}) {
    if (access((std::string(dir) + "/" + program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

bool listening(std::uint16_t port) {
  auto address = net::resolve("127.0.0.1", port);
  if (!address) return false;
  auto fd = net::connect_tcp(*address);
  if (!fd) return false;
  pollfd p{fd->get(), POLLOUT, 0};
  if (poll(&p, 1, 1000) != 1) return false;
  return net::connect_result(fd->get()) == 0;
}

std::vector<std::uint16_t> instance_ports(const nlohmann::json& doc) {
  std::vector<std::uint16_t> out;
  if (!doc.is_object()) return out;
  for (const auto& i : doc["instances"]) {
    const std::string a = i["address"];
    out.push_back(static_cast<std::uint16_t>(std::stoi(a.substr(a.rfind(':') + 1))));
  }
  return out;
}

}  // namespace stampede::lab::testing
