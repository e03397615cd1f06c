#include "script/lua_script.h"

#include <lua.hpp>

#include <nlohmann/json.hpp>

namespace stampede::script {
namespace {

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

// The string field `key` of the table at the top of the stack: nullopt when nil, an error
// message in `error` when it is not a string (numbers are accepted, as Lua converts them).
std::optional<std::string> string_field(lua_State* L, const char* key, std::string& error) {
  lua_getfield(L, -1, key);
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

Result<std::unique_ptr<LuaScript>> LuaScript::load(const std::string& path) {
  lua_State* L = luaL_newstate();
  if (L == nullptr) return make_error("cannot create a Lua state");
  luaL_openlibs(L);
  std::unique_ptr<LuaScript> script(new LuaScript(L, path));
  if (luaL_loadfile(L, path.c_str()) != 0 || lua_pcall(L, 0, 0, 0) != 0) {
    std::string message = lua_tostring(L, -1) ? lua_tostring(L, -1) : "unknown error";
    return make_error("script " + message);
  }
  return script;
}

LuaScript::LuaScript(lua_State* state, std::string path) : state_(state), path_(std::move(path)) {}

LuaScript::~LuaScript() {
  lua_close(state_);
}

bool LuaScript::defines(const char* name) const {
  lua_getglobal(state_, name);
  const bool is_function = lua_isfunction(state_, -1);
  lua_pop(state_, 1);
  return is_function;
}

std::string LuaScript::error_text(const char* name) const {
  const char* message = lua_tostring(state_, -1);
  return std::string(name) + "(): " + (message ? message : "error");
}

Result<void> LuaScript::call(const char* name, int args) {
  lua_getglobal(state_, name);
  lua_insert(state_, -(args + 1));  // the function below its arguments
  if (lua_pcall(state_, args, 1, 0) != 0) {
    std::string message = error_text(name);
    lua_pop(state_, 1);
    return make_error(std::move(message));
  }
  return {};
}

Result<ScriptRequest> LuaScript::request(std::uint64_t id) {
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
  lua_getfield(L, -1, "headers");
  if (lua_istable(L, -1)) {
    lua_pushnil(L);
    while (lua_next(L, -2) != 0) {
      const bool valid = lua_type(L, -2) == LUA_TSTRING && lua_isstring(L, -1);
      if (valid) out.headers.emplace_back(lua_tostring(L, -2), lua_tostring(L, -1));
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

Result<std::string> LuaScript::body(std::uint64_t id) {
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

Result<std::string> LuaScript::response(const ScriptResponse& response) {
  lua_State* L = state_;
  lua_pushinteger(L, response.status);
  lua_createtable(L, 0, static_cast<int>(response.headers.size()));
  for (const auto& [name, value] : response.headers) {
    lua_pushlstring(L, value.data(), value.size());
    lua_setfield(L, -2, std::string(name).c_str());
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

Result<void> LuaScript::done(std::string_view summary_json) {
  push_json(state_, nlohmann::json::parse(summary_json, nullptr, false));
  if (auto r = call("done", 1); !r) return r.error();
  lua_pop(state_, 1);
  return {};
}

std::vector<std::string> LuaScript::string_list(const char* name) const {
  std::vector<std::string> out;
  lua_getglobal(state_, name);
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
