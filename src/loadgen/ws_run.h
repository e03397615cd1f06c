// What a ws:// run needs from the Config: the plan every client follows, and the checks of
// options that do not apply to WebSockets (made by prepare(), plan.h, and for the command line's
// scripts by cli/generator.cc).
#pragma once

#include <string>
#include <string_view>

#include "core/expected.h"
#include "http/url.h"
#include "loadgen/config.h"
#include "loadgen/ws_client.h"

namespace stampede::loadgen {

// The message when no body option is given.
inline constexpr std::string_view kDefaultWsMessage = "hello";

// The upgrade request (Host from the URL unless -H host: is given, user-agent, the -H headers,
// the cookies) and the message (-P, -p, --data...; "hello" without one).
WsPlan make_ws_plan(const Config& config, const http::Url& url);

// Refuses, for a WebSocket URL, what would otherwise be silently ignored: library request hooks
// (Config::hooks), and an index parameter (--index) in the URL's path or query: the URL goes
// once, with the upgrade, and cannot carry each message's index. `url` is config.url parsed.
Expected<void> check_websocket_config(const Config& config, const http::Url& url);

// Refuses what a WebSocket run cannot do: a request rate (--rps), since each client sends its
// next message when the reply to the last one arrives (loadtest refuses it too).
Expected<void> check_websocket_rate(const Config& config, const http::Url& url);

// Refuses, for a WebSocket URL, a Lua request or body script (-R, -p FILE.lua; empty: none).
Expected<void> check_websocket_scripts(const http::Url& url, const std::string& request_script,
                                       const std::string& body_script);

// The refusal of hooks (Config::hooks or attach_hooks) for a WebSocket URL.
Failure websocket_hooks_error();

}  // namespace stampede::loadgen
