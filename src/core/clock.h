// Monotonic time. Every duration in stampede comes from CLOCK_MONOTONIC, never wall time
// (unix_ns is for shared instants only).
#pragma once

#include <chrono>
#include <cstdint>
#include <ctime>

namespace stampede {

using Nanos = std::chrono::nanoseconds;

// Nanoseconds on the monotonic clock: cheap (vDSO), thread-safe.
inline std::int64_t mono_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Nanoseconds since the Unix epoch on the wall clock (CLOCK_REALTIME): for instants that other
// processes or machines share (--start-at, a result's start), never for durations.
inline std::int64_t unix_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// A clock that can be injected: tests use ManualClock to drive time by hand.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::int64_t now_ns() const = 0;
};

class SteadyClock final : public Clock {
 public:
  std::int64_t now_ns() const override { return mono_ns(); }
};

class ManualClock final : public Clock {
 public:
  explicit ManualClock(std::int64_t start_ns = 0) : now_(start_ns) {}
  std::int64_t now_ns() const override { return now_; }
  void advance(Nanos d) { now_ += d.count(); }
  void set(std::int64_t ns) { now_ = ns; }

 private:
  std::int64_t now_;
};

}  // namespace stampede
