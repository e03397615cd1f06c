// Bounded waits for state that has no event to wait on (a counter a server publishes, a file a
// child writes): poll with a short pause until true or the timeout. Not a sleep standing in for
// synchronisation: the wait ends as soon as the condition holds.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>

namespace stampede::testing {

// Polls `condition` every `pause` until it is true (returns true) or `timeout` passes (returns
// false).
inline bool eventually(const std::function<bool()>& condition,
                       std::chrono::milliseconds timeout = std::chrono::milliseconds(5000),
                       std::chrono::milliseconds pause = std::chrono::milliseconds(1)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
  }
  return true;
}

// Milliseconds of the steady clock since `since`.
inline std::int64_t elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               since)
      .count();
}

}  // namespace stampede::testing
