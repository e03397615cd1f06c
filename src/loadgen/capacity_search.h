// CapacitySearch: which constant rate to try next in a capacity search (--find-max), given the
// verdicts of the steps so far. Pure: no sockets, no clock; the runner (capacity.h) runs each
// step and records its verdict here.
//
// The search brackets, then bisects. From the start rate it multiplies the rate by `growth` after
// every passing step until one fails (or the rate reaches max_rps); then it tries the middle of
// the last passing and the first failing rate until the two are within `resolution` of each
// other (first_fail - last_pass <= resolution * last_pass). Each step's rate lies strictly
// between the bracket's ends, so the last passing rate only grows and the first failing one only
// shrinks. When the very first step fails the search ends at once: nothing was found.
#pragma once

#include <optional>

namespace stampede::loadgen {

struct SearchSettings {
  double start_rps = 0;      // the first step's rate, > 0
  double resolution = 0.02;  // the bracket's width at the end, a fraction of its low end, > 0
  double growth = 2;         // the factor between bracketing steps, > 1
  double max_rps = 0;        // no step asks more; 0: no limit
};

enum class SearchEnd {
  Running,          // next_rate() has the next step
  Found,            // the bracket is within the resolution
  FirstStepFailed,  // the start rate already failed: no passing rate
  Ceiling,          // max_rps passed: the capacity is at least that
  Stopped,          // stop() ended it (the generator's limit, an interrupt)
};

class CapacitySearch {
 public:
  // `settings` must hold what SearchSettings says (the caller checked the user's values).
  explicit CapacitySearch(SearchSettings settings);

  // The rate of the next step; nullopt once the search has ended.
  std::optional<double> next_rate() const;
  // The verdict of the step at next_rate(). Ignored once the search has ended.
  void record(bool passed);
  // Ends the search without a verdict for next_rate().
  void stop();

  SearchEnd end() const { return end_; }
  std::optional<double> last_pass() const { return last_pass_; }
  std::optional<double> first_fail() const { return first_fail_; }

 private:
  void bisect_or_finish();

  SearchSettings settings_;
  double next_ = 0;
  SearchEnd end_ = SearchEnd::Running;
  std::optional<double> last_pass_;
  std::optional<double> first_fail_;
};

}  // namespace stampede::loadgen
