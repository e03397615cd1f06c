// The balancer under test as the findings name it: stampede's own, HAProxy, nginx, or another.
// HAProxy and nginx are recognised by their name in --balancer-cmd (examples/lab/haproxy.sh and
// nginx.sh are what the lab's docs and tests run); the hang and limit findings then say which of
// their settings decided the damage. Pure functions, no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lab/config.h"

namespace stampede::lab {

enum class Peer { BuiltIn, HAProxy, Nginx, Other };

// BuiltIn for the built-in balancer; for a command, HAProxy or nginx when CMD names exactly one
// of them ("haproxy", "nginx", any case); Other for anything else and an external URL (whose
// configuration the lab does not know).
Peer peer_of(const BalancerSpec& spec);

// "stampede balance", "HAProxy", "nginx", "the balancer".
std::string_view peer_name(Peer peer);

// What decided a hang's damage in `peer` as examples/lab/PEER.sh configures it, in plain words
// (" HAProxy: ..."), with the backend timeout when known; empty for the built-in balancer and
// another one.
std::string hang_settings(Peer peer, std::optional<std::int64_t> backend_timeout_ms);

// What `peer` does with an instance that resets connections past its cap (" nginx: ...");
// empty for the built-in balancer and another one.
std::string limit_settings(Peer peer);

}  // namespace stampede::lab
