// IndexedText: a text in which every occurrence of a parameter (--index) is replaced, at render
// time, by a number. Split once at build time; rendering appends the literal runs and the
// number's digits, with no allocation once the output string has grown to the largest text.
// Used by RequestTemplate (the request target and body) and by the WebSocket plan (the message).
//
// Immutable after building: shared read-only by the workers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stampede::loadgen {

// Appends the decimal digits of `n` to `out`.
void append_decimal(std::string& out, std::uint64_t n);
// The number of decimal digits of `n` (1 for 0).
std::size_t decimal_digits(std::uint64_t n);

class IndexedText {
 public:
  IndexedText() = default;
  // `text` with each occurrence of `param` (found left to right, not overlapping) made a slot
  // for the index. An empty `param` makes no slot.
  IndexedText(std::string_view text, std::string_view param);

  // Built piece by piece: `text` as it is, or with its occurrences of `param` as slots (the
  // same `param` in every call).
  void add_literal(std::string_view text);
  void add_indexed(std::string_view text, std::string_view param);

  // The text as given, occurrences of the parameter in place.
  std::string_view text() const { return text_; }
  bool indexed() const { return !slots_.empty(); }
  std::size_t slots() const { return slots_.size(); }
  // The size rendered for `index`.
  std::size_t size(std::uint64_t index) const {
    return text_.size() - slots_.size() * param_size_ + slots_.size() * decimal_digits(index);
  }
  // Appends the text with every slot replaced by `index`.
  void append(std::uint64_t index, std::string& out) const;
  // The text for `index` into `out` (replacing its contents).
  void render(std::uint64_t index, std::string& out) const {
    out.clear();
    append(index, out);
  }

 private:
  std::string text_;
  std::vector<std::size_t> slots_;  // offsets in text_ of the occurrences, ascending
  std::size_t param_size_ = 0;
};

}  // namespace stampede::loadgen
