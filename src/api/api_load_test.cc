// load_test() and LoadTest: loadgen::run on the caller's thread or on one of its own.
#include <thread>

#include "api/bridge.h"

namespace stampede::api {

struct LoadTest::Impl {
  loadgen::Plan plan;
  loadgen::StopSignal stop;
  std::optional<loadgen::RunResult> result;  // set by the thread when the run ran
  std::string error;                         // set by the thread when it could not start
  std::thread thread;
  bool waited = false;
};

namespace {

loadgen::RunHooks hooks_for(const LoadTestOptions& options, loadgen::StopSignal* stop) {
  loadgen::RunHooks hooks;
  hooks.progress = options.progress;
  hooks.stop = stop;
  return hooks;
}

}  // namespace

Result load_test(const LoadTestOptions& options) {
  const loadgen::Plan plan = prepare(options);
  auto run = loadgen::run(plan, hooks_for(options, nullptr));
  if (!run) throw Error(run.error().message);
  return make_result(std::move(run).value());
}

LoadTest start_load_test(const LoadTestOptions& options) {
  auto impl = std::make_unique<LoadTest::Impl>();
  impl->plan = prepare(options);
  LoadTest::Impl* state = impl.get();
  const loadgen::RunHooks hooks = hooks_for(options, &state->stop);
  state->thread = std::thread([state, hooks] {
    auto run = loadgen::run(state->plan, hooks);
    if (run) {
      state->result = std::move(run).value();
    } else {
      state->error = run.error().message;
    }
  });
  return LoadTest(std::move(impl));
}

LoadTest::LoadTest(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LoadTest::LoadTest(LoadTest&&) noexcept = default;
LoadTest& LoadTest::operator=(LoadTest&& other) noexcept {
  if (this != &other) {
    if (impl_) {
      impl_->stop.request_stop();
      if (impl_->thread.joinable()) impl_->thread.join();
    }
    impl_ = std::move(other.impl_);
  }
  return *this;
}

LoadTest::~LoadTest() {
  if (!impl_) return;
  impl_->stop.request_stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

void LoadTest::stop() {
  if (impl_) impl_->stop.request_stop();
}

Result LoadTest::wait() {
  if (!impl_ || impl_->waited) throw Error("LoadTest::wait: called more than once");
  impl_->waited = true;
  impl_->thread.join();
  if (!impl_->result) throw Error(impl_->error);
  return make_result(std::move(*impl_->result));
}

}  // namespace stampede::api
