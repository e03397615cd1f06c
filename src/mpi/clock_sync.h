// Clock offsets between the ranks of an MPI job, and the one instant they start at
// (docs/distributed.md, "Clocks").
//
// As NTP does: a rank reads its wall clock (t0), asks rank 0 for rank 0's (t1), reads its own
// again when the answer arrives (t3); if the two legs took equally long, rank 0's clock minus
// ours is t1 - (t0 + t3) / 2, wrong by at most half the round trip. Of a few round trips the
// one with the shortest trip is kept (the least queued, so the tightest bound). Every rank then
// starts at one instant of rank 0's clock, converted to its own. On one host every rank reads
// the same clock and the offsets are 0 within the measurement's noise.
#pragma once

#include <cstdint>
#include <span>

#include "mpi/world.h"

namespace stampede::mpi {

// One round trip, each reading in nanoseconds since the Unix epoch.
struct ClockSample {
  std::int64_t sent_ns = 0;      // ours, before asking
  std::int64_t peer_ns = 0;      // rank 0's, when it answered
  std::int64_t received_ns = 0;  // ours, when the answer came
};

struct ClockOffset {
  std::int64_t offset_ns = 0;  // rank 0's clock minus ours
  std::int64_t rtt_ns = 0;     // the round trip it was measured over (its error bound x 2)
};

inline constexpr int kClockRounds = 8;

// The offset by the sample with the shortest round trip (the first of equals). Pure; samples
// must not be empty.
ClockOffset best_offset(std::span<const ClockSample> samples);

// Collective: rank 0 answers `rounds` round trips of each other rank, one rank after another.
// Returns this rank's offset from rank 0 ({0, 0} on rank 0).
ClockOffset measure_offset(const World& world, int rounds = kClockRounds);

struct StartInstant {
  std::int64_t rank0_unix_ns = 0;  // the start on rank 0's clock (the same on every rank)
  std::int64_t local_unix_ns = 0;  // the same instant on this rank's clock
};

// Collective: rank 0 chooses the start, `requested_unix_ns` on its clock or, when that is 0,
// `lead_ns` from now (time for every rank to get its workers ready); every rank learns it and
// converts it to its own clock with `mine`.
StartInstant agree_on_start(const World& world, ClockOffset mine, std::int64_t requested_unix_ns,
                            std::int64_t lead_ns);

}  // namespace stampede::mpi
