#include "http/connection_tokens.h"

namespace stampede::http {

void ConnectionTokens::add_list(std::string_view value) {
  while (!value.empty() && !overflow_) {
    const std::size_t comma = value.find(',');
    const std::string_view token = trim_ows(value.substr(0, comma));
    if (!token.empty()) {
      if (count_ == kMax) {
        overflow_ = true;
        return;
      }
      tokens_[count_++] = token;
    }
    if (comma == std::string_view::npos) return;
    value.remove_prefix(comma + 1);
  }
}

}  // namespace stampede::http
