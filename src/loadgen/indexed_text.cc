#include "loadgen/indexed_text.h"

#include <charconv>

namespace stampede::loadgen {

void append_decimal(std::string& out, std::uint64_t n) {
  char digits[24];
  const auto r = std::to_chars(digits, digits + sizeof digits, n);
  out.append(digits, r.ptr);
}

std::size_t decimal_digits(std::uint64_t n) {
  std::size_t d = 1;
  while (n >= 10) {
    n /= 10;
    ++d;
  }
  return d;
}

IndexedText::IndexedText(std::string_view text, std::string_view param) {
  add_indexed(text, param);
}

void IndexedText::add_literal(std::string_view text) {
  text_.append(text);
}

void IndexedText::add_indexed(std::string_view text, std::string_view param) {
  const std::size_t base = text_.size();
  text_.append(text);
  if (param.empty()) return;
  param_size_ = param.size();
  for (std::size_t at = text.find(param); at != std::string_view::npos;
       at = text.find(param, at + param.size())) {
    slots_.push_back(base + at);
  }
}

void IndexedText::append(std::uint64_t index, std::string& out) const {
  if (slots_.empty()) {
    out.append(text_);
    return;
  }
  char digits[24];  // formatted once for all the slots
  const std::size_t length =
      static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, index).ptr - digits);
  std::size_t done = 0;
  for (const std::size_t at : slots_) {
    out.append(text_, done, at - done);
    out.append(digits, length);
    done = at + param_size_;
  }
  out.append(text_, done);
}

}  // namespace stampede::loadgen
