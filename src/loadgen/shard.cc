#include "loadgen/shard.h"

#include <charconv>
#include <cmath>
#include <ctime>

#include <fmt/format.h>

namespace stampede::loadgen {
namespace {

// Digits only (no sign, no space), as an unsigned number.
bool whole(std::string_view s, std::uint64_t& out) {
  if (s.empty() || s.size() > 19) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

// "[.fraction]" at the front of s: nanoseconds (digits past the ninth are dropped).
bool fraction_ns(std::string_view& s, std::int64_t& ns) {
  ns = 0;
  if (s.empty() || s.front() != '.') return true;
  s.remove_prefix(1);
  std::size_t digits = 0;
  std::int64_t scale = 100'000'000;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') {
    ns += (s[digits] - '0') * scale;
    scale /= 10;
    ++digits;
  }
  s.remove_prefix(digits);
  return digits > 0;
}

bool number_at(std::string_view s, std::size_t at, std::size_t len, int& out) {
  std::uint64_t v = 0;
  if (at + len > s.size() || !whole(s.substr(at, len), v)) return false;
  out = static_cast<int>(v);
  return true;
}

// "YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)".
Expected<std::int64_t> parse_rfc3339(std::string_view s) {
  std::tm tm{};
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  const bool shape = s.size() >= 20 && s[4] == '-' && s[7] == '-' &&
                     (s[10] == 'T' || s[10] == 't' || s[10] == ' ') && s[13] == ':' && s[16] == ':';
  if (!shape || !number_at(s, 0, 4, year) || !number_at(s, 5, 2, month) ||
      !number_at(s, 8, 2, day) || !number_at(s, 11, 2, hour) || !number_at(s, 14, 2, minute) ||
      !number_at(s, 17, 2, second) || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 ||
      minute > 59 || second > 60) {
    return make_error("");
  }
  std::string_view rest = s.substr(19);
  std::int64_t ns = 0;
  if (!fraction_ns(rest, ns)) return make_error("");
  std::int64_t offset_s = 0;
  if (rest == "Z" || rest == "z") {
    offset_s = 0;
  } else if (rest.size() == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':') {
    int oh = 0, om = 0;
    if (!number_at(rest, 1, 2, oh) || !number_at(rest, 4, 2, om) || oh > 23 || om > 59) {
      return make_error("");
    }
    offset_s = (rest[0] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
  } else {
    return make_error("");
  }
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  const std::time_t t = timegm(&tm);
  return (static_cast<std::int64_t>(t) - offset_s) * 1'000'000'000 + ns;
}

}  // namespace

Expected<Shard> parse_shard(std::string_view text) {
  const auto error = [&](const char* why) {
    return make_error(fmt::format("--shard: {}, got '{}'", why, text));
  };
  const std::size_t slash = text.find('/');
  std::uint64_t k = 0, n = 0;
  if (slash == std::string_view::npos || !whole(text.substr(0, slash), k) ||
      !whole(text.substr(slash + 1), n)) {
    return error("expected K/N (this is shard K of N, 1 <= K <= N)");
  }
  if (n < 1) return error("N must be at least 1");
  if (n > 1'000'000) return error("N must be at most 1000000");
  if (k < 1 || k > n) return error("K must be between 1 and N");
  return Shard{static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(n)};
}

Expected<void> check_shard(const Shard& shard, std::uint32_t concurrency, std::uint64_t requests) {
  if (shard.count < 1 || shard.index < 1 || shard.index > shard.count) {
    return make_error(
        fmt::format("--shard {}/{}: K must be between 1 and N", shard.index, shard.count));
  }
  if (concurrency < shard.count) {
    return make_error(fmt::format(
        "-c {} with --shard {}/{}: each of the {} shards needs a connection (-c at least {})",
        concurrency, shard.index, shard.count, shard.count, shard.count));
  }
  if (requests > 0 && requests < shard.count) {
    return make_error(fmt::format(
        "-n {} with --shard {}/{}: each of the {} shards needs a request (-n at least {})",
        requests, shard.index, shard.count, shard.count, shard.count));
  }
  return {};
}

Expected<std::int64_t> parse_start_time(std::string_view text) {
  std::string_view rest = text;
  std::size_t digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9')
    ++digits;
  std::uint64_t seconds = 0;
  if (digits > 0 && digits <= 11 && whole(rest.substr(0, digits), seconds)) {
    rest.remove_prefix(digits);
    std::int64_t ns = 0;
    if (fraction_ns(rest, ns) && rest.empty()) {
      return static_cast<std::int64_t>(seconds) * 1'000'000'000 + ns;
    }
  }
  if (auto t = parse_rfc3339(text)) return t;
  return make_error(fmt::format(
      "--start-at: expected an RFC 3339 time (2026-12-03T22:00:00Z) or Unix seconds, got '{}'",
      text));
}

std::string format_start_time(std::int64_t unix_ns) {
  const std::int64_t seconds = unix_ns >= 0 ? unix_ns / 1'000'000'000 : 0;
  const std::int64_t ms = unix_ns >= 0 ? unix_ns % 1'000'000'000 / 1'000'000 : 0;
  const auto t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

}  // namespace stampede::loadgen
