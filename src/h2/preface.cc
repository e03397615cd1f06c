#include "h2/preface.h"

namespace stampede::h2 {

PrefaceMatch match_preface(std::string_view seen) {
  const std::size_t n = seen.size() < kClientPreface.size() ? seen.size() : kClientPreface.size();
  if (seen.substr(0, n) != kClientPreface.substr(0, n)) return PrefaceMatch::Mismatch;
  return n == kClientPreface.size() ? PrefaceMatch::Complete : PrefaceMatch::Partial;
}

}  // namespace stampede::h2
