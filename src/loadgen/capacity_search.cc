#include "loadgen/capacity_search.h"

#include <algorithm>

namespace stampede::loadgen {

CapacitySearch::CapacitySearch(SearchSettings settings)
    : settings_(settings), next_(settings.start_rps) {
  if (settings_.max_rps > 0) next_ = std::min(next_, settings_.max_rps);
}

std::optional<double> CapacitySearch::next_rate() const {
  if (end_ != SearchEnd::Running) return std::nullopt;
  return next_;
}

void CapacitySearch::record(bool passed) {
  if (end_ != SearchEnd::Running) return;
  if (!passed) {
    first_fail_ = next_;
    if (!last_pass_) {
      end_ = SearchEnd::FirstStepFailed;
      return;
    }
    bisect_or_finish();
    return;
  }
  last_pass_ = next_;
  if (first_fail_) {
    bisect_or_finish();
    return;
  }
  // Still bracketing: grow, up to the ceiling.
  if (settings_.max_rps > 0 && next_ >= settings_.max_rps) {
    end_ = SearchEnd::Ceiling;
    return;
  }
  next_ *= settings_.growth;
  if (settings_.max_rps > 0) next_ = std::min(next_, settings_.max_rps);
}

void CapacitySearch::stop() {
  if (end_ == SearchEnd::Running) end_ = SearchEnd::Stopped;
}

void CapacitySearch::bisect_or_finish() {
  const double low = *last_pass_;
  const double high = *first_fail_;
  if (high - low <= settings_.resolution * low) {
    end_ = SearchEnd::Found;
    return;
  }
  next_ = low + (high - low) / 2;
}

}  // namespace stampede::loadgen
