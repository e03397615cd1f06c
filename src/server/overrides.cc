#include "server/overrides.h"

#include <charconv>

#include "core/units.h"
#include "http/query.h"

namespace stampede::server {
namespace {

constexpr OverrideError kBadDelay{"bad delay: expected a duration up to 10m, e.g. delay=50"};
constexpr OverrideError kBadStatus{"bad status: expected a code from 200 to 599"};
constexpr OverrideError kBadSize{"bad size: expected a byte count up to 64m, e.g. size=20k"};
constexpr OverrideError kBadClose{"bad close: expected 1, 0, true or false"};

std::optional<OverrideError> read_delay(std::string_view value, Overrides& out) {
  auto d = parse_duration(value, std::chrono::milliseconds(1));
  if (!d || d->count() > kMaxOverrideDelayNs) return kBadDelay;
  out.delay_ns = d->count();
  return std::nullopt;
}

std::optional<OverrideError> read_status(std::string_view value, Overrides& out) {
  int code = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), code);
  if (ec != std::errc() || ptr != value.data() + value.size() || code < 200 || code > 599) {
    return kBadStatus;
  }
  out.status = code;
  return std::nullopt;
}

std::optional<OverrideError> read_size(std::string_view value, Overrides& out) {
  auto n = parse_size(value);
  if (!n || *n > kMaxOverrideSize) return kBadSize;
  out.size = *n;
  return std::nullopt;
}

std::optional<OverrideError> read_close(std::string_view value, Overrides& out) {
  if (value.empty() || value == "1" || value == "true") {
    out.close = true;
  } else if (value == "0" || value == "false") {
    out.close = false;
  } else {
    return kBadClose;
  }
  return std::nullopt;
}

}  // namespace

std::optional<OverrideError> parse_overrides(std::string_view query, Overrides& out) {
  std::optional<OverrideError> error;
  http::for_each_query_param(query, [&](std::string_view key, std::string_view value) {
    if (error) return;
    if (key == "delay") {
      error = read_delay(value, out);
    } else if (key == "status") {
      error = read_status(value, out);
    } else if (key == "size") {
      error = read_size(value, out);
    } else if (key == "close") {
      error = read_close(value, out);
    }
  });
  return error;
}

}  // namespace stampede::server
