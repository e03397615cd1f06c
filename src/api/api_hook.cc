// The RequestHook that runs LoadTestOptions' callbacks, one per worker.
#include <unordered_map>

#include "api/bridge.h"

namespace stampede::api {
namespace {

// The callbacks of one test, shared read-only by its workers' hooks.
struct Callbacks {
  StatusCallback status;
  ContentInspector inspector;
  RequestGenerator generator;
  IndexParamCallback index_param;
  std::string index_name;
  std::vector<std::string> collect_headers;
  http::RequestSpec base;  // the test's request, host in `base.host`
};

void replace_all(std::string& text, std::string_view what, const std::string& with) {
  for (std::size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + with.size())) {
    text.replace(at, what.size(), with);
  }
}

class ApiHook final : public loadgen::RequestHook {
 public:
  ApiHook(std::shared_ptr<const Callbacks> callbacks, std::uint32_t worker)
      : callbacks_(std::move(callbacks)), worker_(worker) {}

  loadgen::Generated generate(std::uint64_t index, std::string& out) override;
  std::string_view on_outcome(const loadgen::RequestOutcome& outcome) override;

 private:
  std::string error_of(const loadgen::RequestOutcome& outcome) const;
  void fill_headers(const loadgen::RequestOutcome& outcome, RequestResult& result) const;

  std::shared_ptr<const Callbacks> callbacks_;
  std::uint32_t worker_;
  std::unordered_map<std::uint64_t, Labels> labels_;  // by request index, until its outcome
  std::string verdict_;
  std::uint64_t requests_ = 0;
  std::uint64_t errors_ = 0;
  double latency_sum_ms_ = 0;
};

loadgen::Generated ApiHook::generate(std::uint64_t index, std::string& out) {
  const Callbacks& cb = *callbacks_;
  GeneratedRequest request;
  request.method = cb.base.method;
  request.path = cb.base.target;
  request.headers = cb.base.headers;
  request.body = cb.base.body;
  if (!cb.index_name.empty()) {
    const std::string text = cb.index_param ? cb.index_param(index) : std::to_string(index);
    replace_all(request.path, cb.index_name, text);
    replace_all(request.body, cb.index_name, text);
  }
  if (cb.generator) {
    try {
      cb.generator(index, request);
    } catch (...) {
      return {false, false, "generator error"};
    }
  }
  http::RequestSpec spec;
  spec.method = std::move(request.method);
  spec.target = std::move(request.path);
  spec.host = cb.base.host;
  spec.headers = std::move(request.headers);
  spec.body = std::move(request.body);
  spec.keep_alive = cb.base.keep_alive;
  if (!spec.body.empty()) spec.content_type = cb.base.content_type;
  if (!http::validate_request(spec)) return {false, false, "generator error"};
  out = http::format_request(spec);
  if (!request.labels.empty()) labels_[index] = std::move(request.labels);
  return {true, spec.method == "HEAD", {}};
}

std::string ApiHook::error_of(const loadgen::RequestOutcome& outcome) const {
  if (outcome.status == 0) {
    return outcome.failure.empty() ? net::errno_name(outcome.err) : std::string(outcome.failure);
  }
  if (loadgen::WorkerStats::is_error_status(outcome.status)) return std::to_string(outcome.status);
  return {};
}

void ApiHook::fill_headers(const loadgen::RequestOutcome& outcome, RequestResult& result) const {
  if (outcome.response == nullptr) return;
  for (const std::string& name : callbacks_->collect_headers) {
    if (auto value = outcome.response->header(name)) result.headers.emplace_back(name, *value);
  }
}

// A callback that throws fails its request under "callback error": the worker thread must
// not unwind through the event loop.
std::string_view ApiHook::on_outcome(const loadgen::RequestOutcome& outcome) {
  const Callbacks& cb = *callbacks_;
  RequestResult result;
  result.request_index = outcome.index;
  result.instance_index = worker_;
  result.status_code = outcome.status;
  result.request_elapsed_ms = static_cast<double>(outcome.latency_ns) / 1e6;
  result.body = outcome.body;
  fill_headers(outcome, result);
  auto labels = labels_.find(outcome.index);
  if (labels != labels_.end()) result.labels = &labels->second;
  std::string error = error_of(outcome);
  verdict_.clear();
  try {
    if (cb.inspector && outcome.status != 0) cb.inspector(result);
    if (!result.custom_error.empty()) verdict_ = error = result.custom_error;
    ++requests_;
    if (!error.empty()) ++errors_;
    latency_sum_ms_ += result.request_elapsed_ms;
    if (cb.status) {
      const LatencyInfo info{requests_, errors_, latency_sum_ms_ / static_cast<double>(requests_)};
      cb.status(error, result, info);
    }
  } catch (...) {
    verdict_ = "callback error";
  }
  if (labels != labels_.end()) labels_.erase(labels);
  if (outcome.status == 0) return {};  // already counted as a failure
  return verdict_;
}

}  // namespace

std::shared_ptr<const loadgen::HookSet> make_hooks(const LoadTestOptions& options,
                                                   const http::RequestSpec& base) {
  if (!options.status_callback && !options.content_inspector && !options.request_generator &&
      !options.index_param_callback) {
    return nullptr;
  }
  auto callbacks = std::make_shared<Callbacks>();
  callbacks->status = options.status_callback;
  callbacks->inspector = options.content_inspector;
  callbacks->generator = options.request_generator;
  callbacks->index_param = options.index_param_callback;
  callbacks->index_name = options.index_param;
  callbacks->collect_headers = options.collect_headers;
  callbacks->base = base;
  // Host travels apart from the headers a generator sees (it cannot change the target).
  auto& headers = callbacks->base.headers;
  for (auto it = headers.begin(); it != headers.end(); ++it) {
    if (it->first == "host") {
      callbacks->base.host = it->second;
      headers.erase(it);
      break;
    }
  }
  auto hooks = std::make_shared<loadgen::HookSet>();
  hooks->generates = options.request_generator || options.index_param_callback;
  hooks->capture_body = options.collect_body;
  hooks->capture_headers = options.collect_headers;
  hooks->make = [callbacks](std::uint32_t worker) -> std::unique_ptr<loadgen::RequestHook> {
    return std::make_unique<ApiHook>(callbacks, worker);
  };
  return hooks;
}

}  // namespace stampede::api
