#include "mpi/clock_sync.h"

#include <vector>

#include "core/clock.h"

namespace stampede::mpi {

ClockOffset best_offset(std::span<const ClockSample> samples) {
  ClockOffset best;
  bool found = false;
  for (const ClockSample& s : samples) {
    const std::int64_t rtt = s.received_ns - s.sent_ns;
    if (found && rtt >= best.rtt_ns) continue;
    found = true;
    // The midpoint without overflow: sent + rtt / 2.
    best = {s.peer_ns - (s.sent_ns + rtt / 2), rtt};
  }
  return best;
}

ClockOffset measure_offset(const World& world, int rounds) {
  if (world.rank() == 0) {
    for (int peer = 1; peer < world.size(); ++peer) {
      for (int i = 0; i < rounds; ++i) {
        world.receive(peer);
        world.send(peer, unix_ns());
      }
    }
    return {};
  }
  std::vector<ClockSample> samples;
  for (int i = 0; i < rounds; ++i) {
    ClockSample s;
    s.sent_ns = unix_ns();
    world.send(0, s.sent_ns);
    s.peer_ns = world.receive(0);
    s.received_ns = unix_ns();
    samples.push_back(s);
  }
  return best_offset(samples);
}

StartInstant agree_on_start(const World& world, ClockOffset mine, std::int64_t requested_unix_ns,
                            std::int64_t lead_ns) {
  std::int64_t start = 0;
  if (world.rank() == 0) start = requested_unix_ns != 0 ? requested_unix_ns : unix_ns() + lead_ns;
  start = world.broadcast(start);
  return {start, start - mine.offset_ns};
}

}  // namespace stampede::mpi
