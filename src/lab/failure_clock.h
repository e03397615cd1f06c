// Times the failures of a generator run without per-request records. The generator prints a
// progress line every interval ("Errors: N, accumulated errors: M, ..."); this stream buffer is
// handed to it as RunHooks::progress and notes, from an injected clock, the moment each line
// arrives. The last line whose accumulated count grew bounds the last failure from above,
// within one interval.
#pragma once

#include <cstdint>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"

namespace stampede::lab {

// Written by the thread that runs loadgen::run (its progress printer), read after run returns.
class FailureClock : public std::streambuf {
 public:
  explicit FailureClock(const Clock& clock) : clock_(clock) {}

  // The accumulated failures the last line reported (0 before any).
  std::uint64_t errors_seen() const { return errors_; }
  // When (clock ns) the accumulated count last grew; 0 when it never did.
  std::int64_t last_growth_ns() const { return last_growth_ns_; }
  // Every growth of the accumulated count: (clock ns, accumulated), at most kMaxGrowths (the
  // later ones are dropped; last_growth_ns() still follows them).
  struct Growth {
    std::int64_t ns = 0;
    std::uint64_t accumulated = 0;
  };
  static constexpr std::size_t kMaxGrowths = 4096;
  const std::vector<Growth>& growths() const { return growths_; }
  // Progress lines seen (errors lines not counted).
  std::uint64_t lines() const { return lines_; }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;

 private:
  void on_line(std::string_view line);

  const Clock& clock_;
  std::string line_;
  std::uint64_t errors_ = 0;
  std::int64_t last_growth_ns_ = 0;
  std::uint64_t lines_ = 0;
  std::vector<Growth> growths_;
};

}  // namespace stampede::lab
