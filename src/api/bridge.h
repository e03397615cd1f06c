// Between the public API (include/stampede, inline namespace stampede::api) and the modules.
//
// The public stampede::Result and stampede::Error share their names with the core's Result<T>
// and Error: the module headers are included here, before the public ones, and code here names
// the core's types only through `auto` (after the public headers, both names are ambiguous).
// So the .cc files of src/api include this header and no module header.
#pragma once

#include <memory>
#include <string>

#include "http/header.h"
#include "http/url.h"
#include "http/writer.h"
#include "loadgen/config.h"
#include "loadgen/hooks.h"
#include "loadgen/report/json.h"
#include "loadgen/report/text.h"
#include "loadgen/request.h"
#include "loadgen/runner.h"
#include "loadgen/worker_stats.h"
#include "net/socket.h"
#include "server/server.h"
// The public headers last (see above).
#include "stampede/stampede.h"

namespace stampede::api {

// The Config for `options`, with a HookSet when a callback is set. Throws stampede::Error for
// options the load generator rejects or does not support.
loadgen::Config to_config(const LoadTestOptions& options);

// Resolves the target too, so that a test that would fail to start throws before it starts.
void check_startable(const loadgen::Config& config);

// The HookSet running the options' callbacks (api_hook.cc); null when none is set.
std::shared_ptr<const loadgen::HookSet> make_hooks(const LoadTestOptions& options,
                                                   const loadgen::Config& config);

Result make_result(loadgen::RunResult run);

}  // namespace stampede::api
