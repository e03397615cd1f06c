#include "ws/utf8.h"

#include <cstdint>
#include <cstring>

namespace stampede::ws {
namespace {

// The length of the sequence a lead byte starts, 0 for a byte that cannot lead.
int sequence_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead < 0xC2) return 0;  // continuation bytes, and C0/C1 (always overlong)
  if (lead < 0xE0) return 2;
  if (lead < 0xF0) return 3;
  if (lead < 0xF5) return 4;
  return 0;  // F5..FF: above U+10FFFF
}

bool is_continuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// The allowed range of the second byte, which rules out overlongs, surrogates and > U+10FFFF
// (RFC 3629's table).
bool second_byte_ok(unsigned char lead, unsigned char second) {
  switch (lead) {
    case 0xE0:
      return second >= 0xA0 && second <= 0xBF;
    case 0xED:
      return second >= 0x80 && second <= 0x9F;
    case 0xF0:
      return second >= 0x90 && second <= 0xBF;
    case 0xF4:
      return second >= 0x80 && second <= 0x8F;
    default:
      return is_continuation(second);
  }
}

}  // namespace

bool valid_utf8(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const unsigned char* end = p + text.size();
  while (p < end) {
    if (end - p >= 8) {
      std::uint64_t word;
      std::memcpy(&word, p, 8);
      if ((word & 0x8080808080808080ULL) == 0) {
        p += 8;
        continue;
      }
    }
    const int length = sequence_length(*p);
    if (length == 0 || end - p < length) return false;
    if (length > 1) {
      if (!second_byte_ok(p[0], p[1])) return false;
      for (int i = 2; i < length; ++i) {
        if (!is_continuation(p[i])) return false;
      }
    }
    p += length;
  }
  return true;
}

}  // namespace stampede::ws
