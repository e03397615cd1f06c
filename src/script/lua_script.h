// LuaScript: one LuaJIT state running a user's request script (docs/scripting.md). Loading
// checks the syntax and runs the top level; each call is protected (lua_pcall), so a script
// error becomes an Error with the script's message and line, never a crash.
//
// Thread: one state per worker thread; a LuaScript is used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

struct lua_State;

namespace stampede::script {

// What request(id) returned; unset fields keep the command line's request.
struct ScriptRequest {
  std::optional<std::string> method;
  std::optional<std::string> path;
  std::vector<std::pair<std::string, std::string>> headers;  // added to (or replacing) the base
  std::optional<std::string> body;
};

// A response as response(status, headers, body) sees it.
struct ScriptResponse {
  int status = 0;
  std::vector<std::pair<std::string_view, std::string_view>> headers;
  std::string_view body;
};

class LuaScript {
 public:
  // Loads and runs `path`. Errors: unreadable file, syntax error, error in the top level.
  static Result<std::unique_ptr<LuaScript>> load(const std::string& path);
  ~LuaScript();
  LuaScript(const LuaScript&) = delete;
  LuaScript& operator=(const LuaScript&) = delete;

  // Whether the script defines a global function `name`.
  bool defines(const char* name) const;

  // request(id): a table {method=, path=, headers={name=value}, body=}.
  Result<ScriptRequest> request(std::uint64_t id);
  // body(id): a string.
  Result<std::string> body(std::uint64_t id);
  // response(status, headers, body): nil/true accepts the response; false fails it under
  // "script failure"; a string fails it under that code. The verdict ("" to accept).
  Result<std::string> response(const ScriptResponse& response);
  // done(summary): `summary_json` (the JSON report) as a table.
  Result<void> done(std::string_view summary_json);
  // The string array global `name` (e.g. response_headers), empty when unset.
  std::vector<std::string> string_list(const char* name) const;

 private:
  explicit LuaScript(lua_State* state, std::string path);
  // Calls the global function `name` with the `args` values on the stack; leaves one result.
  Result<void> call(const char* name, int args);
  std::string error_text(const char* name) const;

  lua_State* state_;
  std::string path_;
};

}  // namespace stampede::script
