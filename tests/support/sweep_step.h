// A hand-made step of a connection sweep (--sweep-connections), for the tests of the knee finder
// and of the lab's sweep finding. Header-only: it needs stampede_loadgen, which only the binaries
// that include it link.
#pragma once

#include <cstdint>

#include "loadgen/sweep.h"

namespace stampede::testing {

// The step of `connections` that held `rps` at a median (and mean) latency of `p50_ms`.
inline loadgen::SweepStep sweep_step(std::uint32_t connections, double rps, double p50_ms) {
  return {.connections = connections, .rps = rps, .mean_ms = p50_ms, .p50_ms = p50_ms};
}

}  // namespace stampede::testing
