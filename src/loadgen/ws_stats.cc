#include "loadgen/ws_stats.h"

#include <ostream>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace stampede::loadgen {
namespace {

void merge_map(std::map<int, std::uint64_t>& into, const std::map<int, std::uint64_t>& from) {
  for (const auto& [code, n] : from)
    into[code] += n;
}

std::string list(const std::map<int, std::uint64_t>& counts) {
  if (counts.empty()) return "0";
  std::string out;
  for (const auto& [code, n] : counts)
    out += fmt::format("{}{} x {}", out.empty() ? "" : ", ", n, code);
  return out;
}

nlohmann::ordered_json object(const std::map<int, std::uint64_t>& counts) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [code, n] : counts)
    j[std::to_string(code)] = n;
  return j;
}

}  // namespace

void WsCounts::merge(const WsCounts& other) {
  messages += other.messages;
  merge_map(refused, other.refused);
  merge_map(closed, other.closed);
  merge_map(protocol, other.protocol);
}

std::map<int, std::uint64_t>* WsCounts::of(WsFailure kind) {
  switch (kind) {
    case WsFailure::Refused:
      return &refused;
    case WsFailure::Closed:
      return &closed;
    case WsFailure::Protocol:
      break;
  }
  return &protocol;
}

std::string ws_error_name(WsFailure kind, int code) {
  switch (kind) {
    case WsFailure::Refused:
      return "handshake " + std::to_string(code);
    case WsFailure::Closed:
      return "close " + std::to_string(code);
    case WsFailure::Protocol:
      break;
  }
  return code == 0 ? std::string("bad handshake") : "protocol " + std::to_string(code);
}

void add_ws_error_codes(const WsCounts& counts, std::map<std::string, std::uint64_t>& codes) {
  const std::pair<WsFailure, const std::map<int, std::uint64_t>*> kinds[] = {
      {WsFailure::Refused, &counts.refused},
      {WsFailure::Closed, &counts.closed},
      {WsFailure::Protocol, &counts.protocol}};
  for (const auto& [kind, counted] : kinds) {
    for (const auto& [code, n] : *counted)
      codes[ws_error_name(kind, code)] += n;
  }
}

void write_ws_text(const WsCounts& counts, std::uint64_t connections, std::ostream& out) {
  fmt::print(out, "\nWebSocket\n");
  fmt::print(out, "Connections opened:  {}\n", connections);
  fmt::print(out, "Messages answered:   {}\n", counts.messages);
  fmt::print(out, "Handshakes refused:  {}\n", list(counts.refused));
  fmt::print(out, "Closed by server:    {}\n", list(counts.closed));
  fmt::print(out, "Protocol errors:     {}\n", list(counts.protocol));
}

nlohmann::ordered_json ws_json(const WsCounts& counts, std::uint64_t connections) {
  nlohmann::ordered_json j;
  j["connectionsOpened"] = connections;
  j["messages"] = counts.messages;
  j["handshakesRefused"] = object(counts.refused);
  j["closedByPeer"] = object(counts.closed);
  j["protocolErrors"] = object(counts.protocol);
  return j;
}

}  // namespace stampede::loadgen
