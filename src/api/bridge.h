// Between the public API (include/stampede, inline namespace stampede::api) and the modules.
//
// The public stampede::Result and stampede::Error are the library's own; the modules' are core's
// Expected<T> and Failure (core/expected.h), so the names do not clash. The .cc files of src/api
// include this header and no module header, so what the API reaches of the modules is listed
// here.
#pragma once

#include <memory>
#include <string>

#include "http/header.h"
#include "http/url.h"
#include "http/writer.h"
#include "loadgen/config.h"
#include "loadgen/hooks.h"
#include "loadgen/plan.h"
#include "loadgen/report/json.h"
#include "loadgen/report/text.h"
#include "loadgen/request.h"
#include "loadgen/runner.h"
#include "loadgen/worker_stats.h"
#include "net/socket.h"
#include "server/plan.h"
#include "server/server.h"
// The public headers last (see above).
#include "stampede/stampede.h"

namespace stampede::api {

// The Config for `options`. Throws stampede::Error for options the API itself refuses.
loadgen::Config to_config(const LoadTestOptions& options);

// The prepared run for `options` (loadgen::prepare), with a HookSet when a callback is set and
// the target resolved, so that a test that would fail to start throws before it starts. Throws
// stampede::Error for options the load generator rejects or does not support.
loadgen::Plan prepare(const LoadTestOptions& options);

// The HookSet running the options' callbacks (api_hook.cc), starting from the run's request
// `base`; null when none is set.
std::shared_ptr<const loadgen::HookSet> make_hooks(const LoadTestOptions& options,
                                                   const http::RequestSpec& base);

Result make_result(loadgen::RunResult run);

}  // namespace stampede::api
