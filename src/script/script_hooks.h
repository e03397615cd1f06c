// The command line's scripts (-R FILE.lua, and -p/-u/-a FILE.lua) as a loadgen HookSet.
#pragma once

#include <memory>
#include <string>

#include "core/expected.h"
#include "http/writer.h"
#include "loadgen/hooks.h"
#include "script/lua_script.h"

namespace stampede::script {

struct ScriptParams {
  std::string request_script;  // -R: defines request(id), optionally response() and done()
  std::string body_script;     // -p/-u/-a FILE.lua: defines body(id)
  http::RequestSpec base;      // the command line's request (host among the headers)
};

// What a script's request() result makes of the command line's request in `spec`: the method
// upper-cased, the path as the target, the body, and each header replacing the one of the same
// name (any case) or added after the others. Plain functions of their arguments, so that a fuzz
// target (tests/fuzz/request_builder_fuzz.cc) checks what the hooks send.
void apply_script_request(ScriptRequest request, http::RequestSpec& spec);
// The last step before a built request is formatted: a body gets Content-Type "text/plain"
// unless the spec has one; then http::validate_request, its refusal prefixed "request(): ".
Expected<void> finish_script_request(http::RequestSpec& spec);

// Loads the scripts once to check them, and calls request(0)/body(0) once on that throwaway
// state, so that syntax errors, errors at the top level and wrong return types stop the run
// before anything is sent (the message names the script and line). Each worker then gets its
// own state (HookSet::make). A script error during the run counts as the error "script error";
// its message is printed once on stderr. HookSet::on_done runs done(summary) on a fresh state.
Expected<std::shared_ptr<loadgen::HookSet>> make_script_hooks(const ScriptParams& params);

}  // namespace stampede::script
