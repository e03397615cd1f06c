// What a WebSocket run (ws://) measured beyond latencies: the failures by kind and code, and
// how they are named in the reports. Plain counts, merged after the workers join.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace stampede::loadgen {

enum class WsFailure : std::uint8_t {
  Refused,   // the server answered the upgrade with this HTTP status instead of 101
  Closed,    // the server closed with this code while a message waited (1006: no close frame)
  Protocol,  // we closed with this code because of the server's bytes (1002, 1007, 1009), or
             // 0: a 101 answer with a wrong Sec-WebSocket-Accept or Upgrade
};

struct WsCounts {
  std::uint64_t messages = 0;  // messages answered (round trips measured)
  std::map<int, std::uint64_t> refused;
  std::map<int, std::uint64_t> closed;
  std::map<int, std::uint64_t> protocol;

  void add(WsFailure kind, int code) { ++(*of(kind))[code]; }
  void merge(const WsCounts& other);
  std::map<int, std::uint64_t>* of(WsFailure kind);
};

// The error code a failure is counted under: "handshake 503", "close 1011", "protocol 1002",
// "bad handshake" (one wording, for the report and --log).
std::string ws_error_name(WsFailure kind, int code);
// The failures as error codes for RunResult::error_codes: "handshake 503", "close 1011",
// "protocol 1002", "bad handshake".
void add_ws_error_codes(const WsCounts& counts, std::map<std::string, std::uint64_t>& codes);
// The "WebSocket" section of the text report.
void write_ws_text(const WsCounts& counts, std::uint64_t connections, std::ostream& out);
// The "websocket" object of the JSON report (docs/output.md).
nlohmann::ordered_json ws_json(const WsCounts& counts, std::uint64_t connections);

}  // namespace stampede::loadgen
