#include "support/target_log.h"

namespace stampede::testing {

ScriptedServer::Script TargetLog::recorder() {
  return [this](std::uint64_t, const std::string& request) {
    std::lock_guard lock(mutex_);
    targets_.insert(request.substr(0, request.find(" HTTP/1.1")));
    return ok_reply(request);
  };
}

::testing::AssertionResult TargetLog::each_once(const std::string& prefix, int n) const {
  std::lock_guard lock(mutex_);
  std::string wrong;
  int wrong_ids = 0;
  for (int i = 1; i <= n; ++i) {
    const std::size_t seen = targets_.count("GET " + prefix + std::to_string(i));
    if (seen == 1) continue;
    if (++wrong_ids <= 10) wrong += " " + std::to_string(i) + " (" + std::to_string(seen) + "x)";
  }
  if (targets_.size() == static_cast<std::size_t>(n) && wrong_ids == 0) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << targets_.size() << " requests for " << n << " ids; "
                                       << wrong_ids << " ids not seen once:" << wrong;
}

}  // namespace stampede::testing
