// What a ws:// run needs from the Config: the plan every client follows, and the checks of
// options that do not apply to WebSockets.
#pragma once

#include <string_view>

#include "core/result.h"
#include "http/url.h"
#include "loadgen/config.h"
#include "loadgen/ws_client.h"

namespace stampede::loadgen {

// The message when no body option is given.
inline constexpr std::string_view kDefaultWsMessage = "hello";

bool is_websocket(const Config& config);

// The upgrade request (Host from the URL unless -H host: is given, user-agent, the -H headers,
// the cookies) and the message (-P, -p, --data...; "hello" without one).
WsPlan make_ws_plan(const Config& config, const http::Url& url);

// Refuses what a WebSocket run cannot do: a request rate (`rate_given`: --rps), since each
// client sends its next message when the reply to the last one arrives (loadtest refuses it too).
Result<void> check_websocket_options(const Config& config, bool rate_given);

// Refuses, for a WebSocket URL, what would otherwise be silently ignored: a Lua request or body
// script (-R, -p FILE.lua), library request hooks (Config::hooks), and an index parameter
// (--index) in the URL's path or query: the URL goes once, with the upgrade, and cannot carry
// each message's index. Called by validate(), so run() refuses them too. `url` is config.url
// parsed.
Result<void> check_websocket_config(const Config& config, const http::Url& url);

}  // namespace stampede::loadgen
