#include "lab/failure_clock.h"

#include <charconv>

namespace stampede::lab {
namespace {

constexpr std::string_view kAccumulated = "accumulated errors: ";

}  // namespace

FailureClock::int_type FailureClock::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  const char ch = traits_type::to_char_type(c);
  xsputn(&ch, 1);
  return c;
}

std::streamsize FailureClock::xsputn(const char* s, std::streamsize n) {
  for (std::streamsize i = 0; i < n; ++i) {
    if (s[i] == '\n') {
      on_line(line_);
      line_.clear();
    } else if (line_.size() < 512) {
      line_ += s[i];
    }
  }
  return n;
}

void FailureClock::on_line(std::string_view line) {
  if (line.rfind("Requests:", 0) == 0) {
    ++lines_;
    return;
  }
  const std::size_t at = line.find(kAccumulated);
  if (line.rfind("Errors:", 0) != 0 || at == std::string_view::npos) return;
  const char* first = line.data() + at + kAccumulated.size();
  std::uint64_t accumulated = 0;
  auto [ptr, ec] = std::from_chars(first, line.data() + line.size(), accumulated);
  if (ec != std::errc() || ptr == first) return;
  if (accumulated > errors_) {
    errors_ = accumulated;
    last_growth_ns_ = clock_.now_ns();
    if (growths_.size() < kMaxGrowths) growths_.push_back({last_growth_ns_, accumulated});
  }
}

}  // namespace stampede::lab
