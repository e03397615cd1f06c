// LuaScript: one LuaJIT state running a user's request script (docs/scripting.md). Loading
// checks the syntax and runs the top level; each call is protected (lua_pcall), so a script
// error becomes an Error with the script's message and line, never a crash.
//
// Bounded: the state runs in LuaJIT's interpreter (the JIT compiler is off: compiled loops do
// not call hooks), and a count hook stops any call - the top level too - after
// kCallInstructions VM instructions or kCallSeconds, when the `stop` flag it watches turns
// true, or once the deadline passes; an allocator refuses to grow the state past kMemoryBytes. A
// call stopped so fails with a message naming the script and the phase, and halted() tells it from
// an ordinary script error (the run must stop); every later call fails the same way. The script
// cannot catch that stop: pcall, xpcall and coroutine.resume pass it on. What a C function does in
// one step (a pathological string.find pattern) is not bounded.
//
// Sandboxed: the base library, string, table, math, bit and coroutine; os only with time, clock,
// date, difftime and getenv; io only with open, write, type, stdout and stderr. Nothing that
// ends or forks the process (os.exit, os.execute, io.popen), reads the terminal (io.read,
// io.lines, io.stdin), or reaches past the limits (debug, jit, ffi, require, package, load,
// loadstring, loadfile, dofile: LuaJIT bytecode is unchecked).
//
// Thread: one state per worker thread; a LuaScript is used by one thread at a time, but for
// the `stop` flag, which any thread may set.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/expected.h"

struct lua_State;

namespace stampede::script {

// Per call (the top level, request(), body(), response(), done()): about 0.5 s of a tight
// interpreted loop, far beyond what building a request takes.
inline constexpr std::uint64_t kCallInstructions = 100'000'000;
// Per call too, for loops whose every instruction is slow C work (raising and catching errors,
// say): seconds of a worker's time, which no request's script needs.
inline constexpr std::int64_t kCallSeconds = 5;
// Per state, everything the script keeps and makes.
inline constexpr std::size_t kMemoryBytes = std::size_t{256} << 20;

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

// What ends a call early besides the limits: `stop` (may be null; set by any thread, it must
// outlive the script) and `deadline_ns` (mono_ns(); 0: none).
struct Watch {
  const std::atomic<bool>* stop = nullptr;
  std::int64_t deadline_ns = 0;
};

class LuaScript {
 public:
  // Loads and runs `path`. Errors: unreadable file, syntax error, error in the top level, a top
  // level over a limit or stopped by `watch`.
  static Expected<std::unique_ptr<LuaScript>> load(const std::string& path, Watch watch = {});
  ~LuaScript();
  LuaScript(const LuaScript&) = delete;
  LuaScript& operator=(const LuaScript&) = delete;

  // Replaces what later calls watch (the worker learns its deadline when the run starts).
  void watch(Watch watch);
  // Whether a call was stopped by a limit or the watch rather than failing on its own: the
  // state is then not used again (every call fails with that message).
  bool halted() const;

  // Whether the script defines a global function `name`.
  bool defines(const char* name) const;

  // request(id): a table {method=, path=, headers={name=value}, body=}.
  Expected<ScriptRequest> request(std::uint64_t id);
  // body(id): a string.
  Expected<std::string> body(std::uint64_t id);
  // response(status, headers, body): nil/true accepts the response; false fails it under
  // "script failure"; a string fails it under that code. The verdict ("" to accept).
  Expected<std::string> response(const ScriptResponse& response);
  // done(summary): `summary_json` (the JSON report) as a table.
  Expected<void> done(std::string_view summary_json);
  // The string array global `name` (e.g. response_headers), empty when unset.
  std::vector<std::string> string_list(const char* name) const;

  struct Guard;  // the limits' state, shared with the allocator and the hook (lua_script.cc)

 private:
  LuaScript(lua_State* state, std::unique_ptr<Guard> guard, std::string path);
  // Calls the global function `name` with the `args` values on the stack; leaves one result.
  Expected<void> call(const char* name, int args);
  // Runs the function below its `args` on the stack under the limits; leaves `results`.
  // The error names `phase` ("request()", "top level") and the script.
  Expected<void> protected_call(int args, int results, std::string_view phase);

  lua_State* state_;
  std::unique_ptr<Guard> guard_;
  std::string path_;
};

}  // namespace stampede::script
