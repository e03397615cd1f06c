// Fuzz target: ws::valid_utf8, against a reference decoder written from RFC 3629's definition
// (decode each sequence to its code point, then refuse overlong forms, surrogates and values
// above U+10FFFF). Each input is checked at the eight alignments of its start, so the
// eight-bytes-at-a-time ASCII path is entered at every offset.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.h"
#include "ws/utf8.h"

namespace {

bool reference_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    int length = 0;
    std::uint32_t cp = 0;
    if (lead < 0x80) {
      length = 1;
      cp = lead;
    } else if ((lead & 0xE0) == 0xC0) {
      length = 2;
      cp = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3;
      cp = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4;
      cp = lead & 0x07;
    } else {
      return false;
    }
    if (text.size() - i < static_cast<std::size_t>(length)) return false;
    for (int k = 1; k < length; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      if ((c & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    static constexpr std::uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[length]) return false;             // overlong
    if (cp >= 0xD800 && cp <= 0xDFFF) return false;  // surrogate
    if (cp > 0x10FFFF) return false;
    i += length;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  for (std::size_t skip = 0; skip < 8 && skip <= size; ++skip) {
    const std::string_view text = all.substr(skip);
    const bool ours = stampede::ws::valid_utf8(text);
    FUZZ_CHECK(ours == reference_utf8(text), "valid_utf8 says %d for %zu bytes at offset %zu",
               int{ours}, text.size(), skip);
  }
  return 0;
}
