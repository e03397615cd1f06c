#include "script/lua_script.h"

#include <lua.hpp>

#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/clock.h"

namespace stampede::script {

// Why the current call was stopped from outside the script.
enum class Halt : std::uint8_t { None, Instructions, Time, Memory, Stopped, Deadline };

struct LuaScript::Guard {
  std::size_t memory = 0;  // bytes the state holds
  // Only while a call runs: the arguments stampede pushes are not the script's, and a refusal
  // outside a protected call would be a panic.
  bool enforce = false;
  std::uint64_t executed = 0;    // VM instructions of the current call, to kHookStep
  std::int64_t call_end_ns = 0;  // mono_ns() when the current call is over its time
  Watch watch;
  Halt halt = Halt::None;
  // A call was stopped: the state is not used again (LuaJIT may leave its hook disabled
  // after an error raised in it), every later call fails with `halt_message`.
  bool halted = false;
  std::string halt_message;
};

namespace {

// The count hook runs every kHookStep VM instructions: the budget's granularity, and what a
// call costs when it is never reached (nothing: the hook is not called at all).
constexpr int kHookStep = 10'000;

// Removes what would let a script end or fork the process, block on the terminal, load
// unchecked bytecode or C, or turn the JIT (and so the hook) back on (lua_script.h). Called
// with a function telling whether the call is stopped: what catches errors (pcall, xpcall,
// coroutine.resume) passes that stop on instead of returning, and an xpcall handler does not
// run for it (it would run unhooked).
constexpr std::string_view kSandbox = R"(
local halted = ...
local raw_pcall, raw_xpcall, raw_resume, error = pcall, xpcall, coroutine.resume, error
local function pass(...)
  if halted() then error("stopped by stampede", 0) end
  return ...
end
pcall = function(...) return pass(raw_pcall(...)) end
xpcall = function(f, handler)
  return pass(raw_xpcall(f, function(...)
    if halted() then return ... end
    return handler(...)
  end))
end
coroutine.resume = function(...) return pass(raw_resume(...)) end
local full_io, full_os = io, os
io = {open = full_io.open, write = full_io.write, type = full_io.type, stdout = full_io.stdout,
      stderr = full_io.stderr}
os = {time = full_os.time, clock = full_os.clock, date = full_os.date,
      difftime = full_os.difftime, getenv = full_os.getenv}
debug, jit, ffi, package, require, module, load, loadstring, loadfile, dofile, newproxy =
  nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil
)";

LuaScript::Guard& guard_of(lua_State* L) {
  void* ud = nullptr;
  lua_getallocf(L, &ud);
  return *static_cast<LuaScript::Guard*>(ud);
}

// lua_Alloc: the system allocator, refusing to grow the state past kMemoryBytes during a call
// (the script then gets "not enough memory", and the hook stops the call).
void* allocate(void* ud, void* ptr, std::size_t old_size, std::size_t new_size) {
  auto& guard = *static_cast<LuaScript::Guard*>(ud);
  if (new_size == 0) {
    std::free(ptr);
    guard.memory -= old_size;
    return nullptr;
  }
  if (new_size > old_size && guard.enforce && guard.memory - old_size + new_size > kMemoryBytes) {
    guard.halt = Halt::Memory;
    return nullptr;
  }
  void* out = std::realloc(ptr, new_size);
  if (out != nullptr) guard.memory = guard.memory - old_size + new_size;
  return out;
}

// lua_CFunction for the sandbox: whether the current call is stopped.
int is_halted(lua_State* L) {
  lua_pushboolean(L, guard_of(L).halt != Halt::None);
  return 1;
}

void count_hook(lua_State* L, lua_Debug*) {
  LuaScript::Guard& guard = guard_of(L);
  guard.executed += kHookStep;
  if (guard.halt == Halt::None) {
    const Watch& watch = guard.watch;
    const std::int64_t now = mono_ns();
    if (guard.executed > kCallInstructions) {
      guard.halt = Halt::Instructions;
    } else if (watch.stop != nullptr && watch.stop->load(std::memory_order_relaxed)) {
      guard.halt = Halt::Stopped;
    } else if (watch.deadline_ns > 0 && now >= watch.deadline_ns) {
      guard.halt = Halt::Deadline;
    } else if (now >= guard.call_end_ns) {
      guard.halt = Halt::Time;
    } else {
      return;
    }
  }
  luaL_error(L, "stopped by stampede");
}

std::string halt_reason(Halt halt) {
  switch (halt) {
    case Halt::Instructions:
      return fmt::format("stopped after {} instructions, the limit of one call (an endless loop?)",
                         kCallInstructions);
    case Halt::Time:
      return fmt::format("stopped after {} s, the limit of one call (an endless loop?)",
                         kCallSeconds);
    case Halt::Memory:
      return fmt::format("stopped at the memory limit of {} MiB", kMemoryBytes >> 20);
    case Halt::Stopped:
      return "stopped: the run was interrupted";
    case Halt::Deadline:
      return "stopped: the run's time (-t) was up";
    case Halt::None:
      break;
  }
  return {};
}

// Pushes the global `name` without metamethods: a script's metatable on _G runs only inside
// a protected, bounded call.
void push_global(lua_State* L, const char* name) {
  lua_pushstring(L, name);
  lua_rawget(L, LUA_GLOBALSINDEX);
}

// Pushes a JSON value as the Lua value it reads as (objects and arrays as tables).
void push_json(lua_State* L, const nlohmann::json& j) {
  if (j.is_object()) {
    lua_createtable(L, 0, static_cast<int>(j.size()));
    for (const auto& [key, value] : j.items()) {
      push_json(L, value);
      lua_setfield(L, -2, key.c_str());
    }
  } else if (j.is_array()) {
    lua_createtable(L, static_cast<int>(j.size()), 0);
    int i = 1;
    for (const auto& value : j) {
      push_json(L, value);
      lua_rawseti(L, -2, i++);
    }
  } else if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    lua_pushlstring(L, s.data(), s.size());
  } else if (j.is_boolean()) {
    lua_pushboolean(L, j.get<bool>());
  } else if (j.is_number()) {
    lua_pushnumber(L, j.get<double>());
  } else {
    lua_pushnil(L);
  }
}

// The string field `key` of the table at the top of the stack (read raw: no metamethod runs
// outside a protected call): nullopt when nil, an error message in `error` when it is not a
// string (numbers are accepted, as Lua converts them).
std::optional<std::string> string_field(lua_State* L, const char* key, std::string& error) {
  lua_pushstring(L, key);
  lua_rawget(L, -2);
  std::optional<std::string> out;
  if (lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER) {
    std::size_t len = 0;
    const char* s = lua_tolstring(L, -1, &len);
    out.emplace(s, len);
  } else if (!lua_isnil(L, -1)) {
    error = std::string("'") + key + "' must be a string, not a " + luaL_typename(L, -1);
  }
  lua_pop(L, 1);
  return out;
}

}  // namespace

Expected<std::unique_ptr<LuaScript>> LuaScript::load(const std::string& path, Watch watch) {
  auto guard = std::make_unique<Guard>();
  guard->watch = watch;
  lua_State* L = lua_newstate(allocate, guard.get());
  if (L == nullptr) return make_error("cannot create a Lua state");
  std::unique_ptr<LuaScript> script(new LuaScript(L, std::move(guard), path));
  luaL_openlibs(L);
  luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
  lua_sethook(L, count_hook, LUA_MASKCOUNT, kHookStep);
  if (luaL_loadbuffer(L, kSandbox.data(), kSandbox.size(), "=sandbox") != 0 ||
      (lua_pushcfunction(L, is_halted), lua_pcall(L, 1, 0, 0)) != 0) {
    return make_error("cannot set up a Lua state");
  }
  if (luaL_loadfile(L, path.c_str()) != 0) {
    std::string message = lua_tostring(L, -1) ? lua_tostring(L, -1) : "unknown error";
    return make_error("script " + message);
  }
  if (auto r = script->protected_call(0, 0, "top level"); !r) return r.error();
  return script;
}

LuaScript::LuaScript(lua_State* state, std::unique_ptr<Guard> guard, std::string path)
    : state_(state), guard_(std::move(guard)), path_(std::move(path)) {}

LuaScript::~LuaScript() {
  lua_close(state_);
}

void LuaScript::watch(Watch watch) {
  guard_->watch = watch;
}

bool LuaScript::halted() const {
  return guard_->halted;
}

bool LuaScript::defines(const char* name) const {
  push_global(state_, name);
  const bool is_function = lua_isfunction(state_, -1);
  lua_pop(state_, 1);
  return is_function;
}

Expected<void> LuaScript::protected_call(int args, int results, std::string_view phase) {
  lua_State* L = state_;
  Guard& guard = *guard_;
  if (guard.halted) {
    lua_pop(L, args + 1);
    return make_error(guard.halt_message);
  }
  guard.executed = 0;
  guard.call_end_ns = mono_ns() + kCallSeconds * 1'000'000'000;
  guard.enforce = true;
  const int status = lua_pcall(L, args, results, 0);
  guard.enforce = false;
  if (status == 0) {
    guard.halt = Halt::None;  // a refused allocation the script survived
    return {};
  }
  if (status == LUA_ERRMEM) guard.halt = Halt::Memory;
  const bool top_level = phase == "top level";
  std::string message = top_level ? "script " : std::string(phase) + ": ";
  if (guard.halt != Halt::None) {
    message += path_ + ": " + (top_level ? "the top level " : "") + halt_reason(guard.halt);
    guard.halted = true;
    guard.halt_message = message;
  } else {
    const char* text = lua_tostring(L, -1);
    message += text ? text : "error";
  }
  lua_pop(L, 1);
  if (guard.halted) lua_gc(L, LUA_GCCOLLECT, 0);  // what it holds goes back now
  return make_error(std::move(message));
}

Expected<void> LuaScript::call(const char* name, int args) {
  push_global(state_, name);
  lua_insert(state_, -(args + 1));  // the function below its arguments
  return protected_call(args, 1, std::string(name) + "()");
}

Expected<ScriptRequest> LuaScript::request(std::uint64_t id) {
  lua_State* L = state_;
  lua_pushnumber(L, static_cast<lua_Number>(id));
  if (auto r = call("request", 1); !r) return r.error();
  if (!lua_istable(L, -1)) {
    std::string message = std::string("request(): must return a table, not a ") +
                          luaL_typename(L, -1) + " (in " + path_ + ")";
    lua_pop(L, 1);
    return make_error(std::move(message));
  }
  ScriptRequest out;
  std::string error;
  out.method = string_field(L, "method", error);
  out.path = string_field(L, "path", error);
  out.body = string_field(L, "body", error);
  lua_pushstring(L, "headers");
  lua_rawget(L, -2);
  if (lua_istable(L, -1)) {
    lua_pushnil(L);
    while (lua_next(L, -2) != 0) {
      const bool valid = lua_type(L, -2) == LUA_TSTRING && lua_isstring(L, -1);
      if (valid) {
        std::size_t name_len = 0, value_len = 0;
        const char* name = lua_tolstring(L, -2, &name_len);
        const char* value = lua_tolstring(L, -1, &value_len);
        out.headers.emplace_back(std::string(name, name_len), std::string(value, value_len));
      }
      lua_pop(L, valid ? 1 : 2);  // the value; the key too when stopping
      if (!valid) {
        error = "'headers' must map names to strings";
        break;
      }
    }
  } else if (!lua_isnil(L, -1)) {
    error = "'headers' must be a table";
  }
  lua_pop(L, 2);  // headers, the returned table
  if (!error.empty()) return make_error("request(): " + error + " (in " + path_ + ")");
  return out;
}

Expected<std::string> LuaScript::body(std::uint64_t id) {
  lua_State* L = state_;
  lua_pushnumber(L, static_cast<lua_Number>(id));
  if (auto r = call("body", 1); !r) return r.error();
  if (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER) {
    std::string message = std::string("body(): must return a string, not a ") +
                          luaL_typename(L, -1) + " (in " + path_ + ")";
    lua_pop(L, 1);
    return make_error(std::move(message));
  }
  std::size_t len = 0;
  const char* s = lua_tolstring(L, -1, &len);
  std::string out(s, len);
  lua_pop(L, 1);
  return out;
}

Expected<std::string> LuaScript::response(const ScriptResponse& response) {
  lua_State* L = state_;
  lua_pushinteger(L, response.status);
  lua_createtable(L, 0, static_cast<int>(response.headers.size()));
  for (const auto& [name, value] : response.headers) {
    lua_pushlstring(L, name.data(), name.size());
    lua_pushlstring(L, value.data(), value.size());
    lua_rawset(L, -3);
  }
  lua_pushlstring(L, response.body.data(), response.body.size());
  if (auto r = call("response", 3); !r) return r.error();
  std::string verdict;
  if (lua_type(L, -1) == LUA_TSTRING) {
    verdict = lua_tostring(L, -1);
    if (verdict.empty()) verdict = "script failure";
  } else if (lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
    verdict = "script failure";
  }
  lua_pop(L, 1);
  return verdict;
}

Expected<void> LuaScript::done(std::string_view summary_json) {
  push_json(state_, nlohmann::json::parse(summary_json, nullptr, false));
  if (auto r = call("done", 1); !r) return r.error();
  lua_pop(state_, 1);
  return {};
}

std::vector<std::string> LuaScript::string_list(const char* name) const {
  std::vector<std::string> out;
  push_global(state_, name);
  if (lua_istable(state_, -1)) {
    for (int i = 1;; ++i) {
      lua_rawgeti(state_, -1, i);
      const bool is_string = lua_type(state_, -1) == LUA_TSTRING;
      if (is_string) out.emplace_back(lua_tostring(state_, -1));
      lua_pop(state_, 1);
      if (!is_string) break;
    }
  }
  lua_pop(state_, 1);
  return out;
}

}  // namespace stampede::script
