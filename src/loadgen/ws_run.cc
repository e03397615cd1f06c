#include "loadgen/ws_run.h"

#include <string>
#include <utility>
#include <vector>

#include "loadgen/request.h"
#include "ws/handshake.h"
#include "ws/utf8.h"

namespace stampede::loadgen {

WsPlan make_ws_plan(const Config& config, const http::Url& url) {
  std::string host = url.host_header;
  bool has_agent = false;
  std::vector<std::pair<std::string, std::string>> headers;
  for (const auto& [name, value] : config.headers) {
    if (name == "host") {
      host = value;
    } else if (name == "upgrade" || name == "connection" || name.rfind("sec-websocket-", 0) == 0) {
      continue;  // the handshake's own fields
    } else {
      has_agent = has_agent || name == "user-agent";
      headers.emplace_back(name, value);
    }
  }
  if (!has_agent) headers.emplace(headers.begin(), "user-agent", user_agent());
  if (!config.cookies.empty()) {
    std::string cookie;
    for (const auto& c : config.cookies)
      cookie += (cookie.empty() ? "" : "; ") + c;
    headers.emplace_back("cookie", std::move(cookie));
  }
  WsPlan plan;
  plan.handshake_prefix = ws::request_prefix({url.target, host, headers});
  const std::string message = config.body.value_or(std::string(kDefaultWsMessage));
  plan.message = IndexedText(message, config.index_param);
  // Decided on the template: digits are ASCII, and a valid UTF-8 parameter found in valid UTF-8
  // text lies on character boundaries, so each rendered message is as valid as the template.
  // A parameter that is not UTF-8 itself could split a character: such messages go as binary.
  plan.binary =
      !ws::valid_utf8(message) || (plan.message.indexed() && !ws::valid_utf8(config.index_param));
  return plan;
}

Expected<void> check_websocket_rate(const Config& config, const http::Url& url) {
  if (config.rps > 0 && url.websocket()) {
    return make_error(
        "--rps is not supported for WebSocket URLs: each client sends its next message when the "
        "reply to the last one arrives");
  }
  return {};
}

Failure websocket_hooks_error() {
  return make_error(
      "per-request callbacks (status_callback, content_inspector, request_generator, "
      "index_param_callback) are not called for a WebSocket URL: each message is the body, "
      "with index_param replaced");
}

Expected<void> check_websocket_scripts(const http::Url& url, const std::string& request_script,
                                       const std::string& body_script) {
  if (!url.websocket()) return {};
  constexpr std::string_view kGiveTheMessage = "give the message with --data, -P or -p FILE";
  if (!request_script.empty()) {
    return make_error("-R '" + request_script +
                      "': a Lua request script does not apply to a WebSocket URL: " +
                      std::string(kGiveTheMessage));
  }
  if (!body_script.empty()) {
    return make_error("'" + body_script +
                      "': a Lua body script does not apply to a WebSocket URL: " +
                      std::string(kGiveTheMessage) + " (text, not a .lua file)");
  }
  return {};
}

Expected<void> check_websocket_config(const Config& config, const http::Url& url) {
  if (!url.websocket()) return {};
  if (config.hooks) return websocket_hooks_error();
  if (config.index_param.empty()) return {};
  if (url.target.find(config.index_param) == std::string::npos) return {};
  return make_error("--index: '" + config.index_param +
                    "' is in the URL, but a WebSocket URL is sent once per connection: put it "
                    "in the message (--data, -P, -p FILE)");
}

}  // namespace stampede::loadgen
