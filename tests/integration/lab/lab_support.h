// Running `stampede lab` as a child process in the integration tests and reading its JSON.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace stampede::lab::testing {

struct LabRun {
  int status = -1;
  std::string out, err;
  nlohmann::json doc;  // stdout parsed when it is JSON, else null
};

// Runs `stampede lab --json -q ARGS...`, bounded by `timeout` (killed after).
LabRun run_lab(const std::vector<std::string>& args,
               std::chrono::milliseconds timeout = std::chrono::seconds(180));

// The run with this label ("even/rr"); fails the test (and returns null) when absent.
const nlohmann::json& run_named(const nlohmann::json& doc, const std::string& label);

// Instance name -> the count of one source ("count", "x_instance", "x_backend").
std::map<std::string, std::uint64_t> counts(const nlohmann::json& run, const std::string& source);
// The run `label` of a lab's JSON (`doc`) went round robin: its three instances agree in every
// source and got more than 100 requests each, at most one apart.
void expect_round_robin_within_one_request(const nlohmann::json& doc, const std::string& label);
// Instance name -> share (0..1).
std::map<std::string, double> shares(const nlohmann::json& run);

// The findings of one kind (e.g. "session-split").
std::vector<nlohmann::json> findings_of(const nlohmann::json& doc, const std::string& kind);

// True when `program` (a peer: haproxy, nginx) is an executable in a system bin folder.
bool installed(const std::string& program);

// True when something accepts connections on 127.0.0.1:port.
bool listening(std::uint16_t port);

// The instance ports of a lab's JSON ("127.0.0.1:P" addresses).
std::vector<std::uint16_t> instance_ports(const nlohmann::json& doc);

}  // namespace stampede::lab::testing
