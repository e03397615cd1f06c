#include "script/script_hooks.h"

#include <atomic>
#include <cstdio>

#include "http/header.h"
#include "script/lua_script.h"

namespace stampede::script {
namespace {

constexpr const char* kScriptError = "script error";

// What the workers' hooks share (read-only but for the once-only report flag).
struct Shared {
  ScriptParams params;
  bool has_response = false;
  std::vector<std::string> response_headers;  // the script's `response_headers` list
  bool running = false;  // false during the dry run: errors are returned, not printed
  std::atomic<bool> reported{false};
  std::atomic<bool> reported_halt{false};

  // Prints the first script error of the run, and the first call stopped by a limit or the
  // run's stop (which stops the run); later ones are only counted.
  void report(const std::string& message, bool halted) {
    std::atomic<bool>& once = halted ? reported_halt : reported;
    if (running && !once.exchange(true)) {
      std::fprintf(stderr, "stampede: %s\n", message.c_str());
    }
  }
};

void upper_case(std::string& text) {
  for (char& c : text) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - ('a' - 'A'));
  }
}

void set_header(std::vector<std::pair<std::string, std::string>>& headers, std::string name,
                std::string value) {
  for (auto& h : headers) {
    if (http::iequals(h.first, name)) {
      h.second = std::move(value);
      return;
    }
  }
  headers.emplace_back(std::move(name), std::move(value));
}

class ScriptHook final : public loadgen::RequestHook {
 public:
  ScriptHook(std::shared_ptr<Shared> shared, std::unique_ptr<LuaScript> requests,
             std::unique_ptr<LuaScript> bodies)
      : shared_(std::move(shared)),
        requests_(std::move(requests)),
        bodies_(std::move(bodies)),
        spec_(shared_->params.base) {
    on_start(0);
  }

  loadgen::Generated generate(std::uint64_t index, std::string& out) override {
    const http::RequestSpec& base = shared_->params.base;
    spec_.method = base.method;
    spec_.target = base.target;
    spec_.headers = base.headers;
    spec_.body = base.body;
    halted_ = false;
    if (requests_) {
      auto request = requests_->request(index);
      if (!request) return failed(request.error().message, requests_->halted());
      apply_script_request(std::move(request).value(), spec_);
    }
    if (bodies_) {
      auto body = bodies_->body(index);
      if (!body) return failed(body.error().message, bodies_->halted());
      spec_.body = std::move(body).value();
    }
    if (auto valid = finish_script_request(spec_); !valid) return failed(valid.error().message);
    out = http::format_request(spec_);
    return {true, spec_.method == "HEAD", {}};
  }

  void on_start(std::int64_t deadline_ns) override {
    for (LuaScript* script : {requests_.get(), bodies_.get()}) {
      if (script != nullptr) script->watch({&stop_, deadline_ns});
    }
  }

  void interrupt() override { stop_.store(true, std::memory_order_relaxed); }

  bool halted() const override { return halted_; }

  std::string_view on_outcome(const loadgen::RequestOutcome& outcome) override {
    if (!shared_->has_response || outcome.response == nullptr) return {};
    ScriptResponse response;
    response.status = outcome.status;
    response.body = outcome.body;
    for (const std::string& name : shared_->response_headers) {
      if (auto value = outcome.response->header(name)) response.headers.emplace_back(name, *value);
    }
    auto verdict = requests_->response(response);
    halted_ = requests_->halted();
    if (!verdict) {
      shared_->report(verdict.error().message, halted_);
      verdict_ = kScriptError;
    } else {
      verdict_ = std::move(verdict).value();
    }
    return verdict_;
  }

  // The message of the last generate() that failed.
  const std::string& last_error() const { return last_error_; }

 private:
  loadgen::Generated failed(std::string message, bool halted = false) {
    halted_ = halted;
    shared_->report(message, halted);
    last_error_ = std::move(message);
    return {false, false, kScriptError};
  }

  std::shared_ptr<Shared> shared_;
  std::unique_ptr<LuaScript> requests_;  // -R's state, or null
  std::unique_ptr<LuaScript> bodies_;    // the body script's state, or null
  http::RequestSpec spec_;               // reused: keeps its buffers
  std::string verdict_;
  std::string last_error_;
  std::atomic<bool> stop_{false};  // set by interrupt(), watched by the scripts' calls
  bool halted_ = false;            // the last call was stopped by a limit or stop_
};

// Loads `path` and checks that it defines `function`.
Expected<std::unique_ptr<LuaScript>> load(const std::string& path, const char* function) {
  auto script = LuaScript::load(path);
  if (!script) return script.error();
  if (!(*script)->defines(function)) {
    return make_error("script " + path + ": does not define a function " + function + "()");
  }
  return script;
}

// One worker's hook: its own state of each script.
Expected<std::unique_ptr<ScriptHook>> make_hook(const std::shared_ptr<Shared>& shared) {
  std::unique_ptr<LuaScript> requests, bodies;
  if (!shared->params.request_script.empty()) {
    auto script = load(shared->params.request_script, "request");
    if (!script) return script.error();
    requests = std::move(script).value();
  }
  if (!shared->params.body_script.empty()) {
    auto script = load(shared->params.body_script, "body");
    if (!script) return script.error();
    bodies = std::move(script).value();
  }
  return std::make_unique<ScriptHook>(shared, std::move(requests), std::move(bodies));
}

// The checks made before the run, on a throwaway hook: load, and build request 0.
Expected<void> dry_run(const std::shared_ptr<Shared>& shared) {
  if (!shared->params.request_script.empty()) {
    auto script = load(shared->params.request_script, "request");
    if (!script) return script.error();
    shared->has_response = (*script)->defines("response");
    shared->response_headers = (*script)->string_list("response_headers");
  }
  auto hook = make_hook(shared);
  if (!hook) return hook.error();
  std::string request;
  if (!(*hook)->generate(0, request).ok) return make_error((*hook)->last_error());
  shared->running = true;
  return {};
}

}  // namespace

void apply_script_request(ScriptRequest request, http::RequestSpec& spec) {
  if (request.method) {
    spec.method = std::move(*request.method);
    upper_case(spec.method);
  }
  if (request.path) spec.target = std::move(*request.path);
  if (request.body) spec.body = std::move(*request.body);
  for (auto& [name, value] : request.headers)
    set_header(spec.headers, std::move(name), std::move(value));
}

Expected<void> finish_script_request(http::RequestSpec& spec) {
  if (!spec.body.empty() && spec.content_type.empty()) spec.content_type = "text/plain";
  if (auto valid = http::validate_request(spec); !valid) {
    return make_error("request(): " + valid.error().message);
  }
  return {};
}

Expected<std::shared_ptr<loadgen::HookSet>> make_script_hooks(const ScriptParams& params) {
  auto shared = std::make_shared<Shared>();
  shared->params = params;
  if (auto r = dry_run(shared); !r) return r.error();
  auto hooks = std::make_shared<loadgen::HookSet>();
  hooks->generates = true;
  hooks->capture_body = shared->has_response;
  hooks->capture_headers = shared->response_headers;
  hooks->make = [shared](std::uint32_t) -> Expected<std::unique_ptr<loadgen::RequestHook>> {
    auto hook = make_hook(shared);
    if (!hook) return hook.error();
    return std::unique_ptr<loadgen::RequestHook>(std::move(hook).value());
  };
  if (!params.request_script.empty()) {
    hooks->on_done = [path = params.request_script](const std::string& summary) {
      auto script = LuaScript::load(path);
      if (!script || !(*script)->defines("done")) return;
      if (auto r = (*script)->done(summary); !r) {
        std::fprintf(stderr, "stampede: %s\n", r.error().message.c_str());
      }
    };
  }
  return hooks;
}

}  // namespace stampede::script
