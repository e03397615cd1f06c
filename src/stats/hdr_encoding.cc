#include "stats/hdr_encoding.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

namespace stampede::stats {
namespace {

constexpr std::uint32_t kV2Cookie = 0x1c849303 | 0x10;
constexpr std::uint32_t kV2CompressedCookie = 0x1c849304 | 0x10;
constexpr std::size_t kHeaderBytes = 40;  // cookie, length, offset, digits, lowest, highest, ratio
constexpr std::size_t kMaxDecodedBytes = std::size_t{64} << 20;

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void put_be(std::string& out, std::uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint64_t get_be(std::string_view in, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i)
    v = (v << 8) | static_cast<unsigned char>(in[at + static_cast<std::size_t>(i)]);
  return v;
}

// HdrHistogram's ZigZagEncoding.putLong: 7 bits a byte, the ninth byte holds the last 8.
void put_zigzag(std::string& out, std::int64_t value) {
  std::uint64_t v =
      (static_cast<std::uint64_t>(value) << 1) ^ static_cast<std::uint64_t>(value >> 63);
  for (int i = 0; i < 8; ++i) {
    if ((v >> 7) == 0) {
      out.push_back(static_cast<char>(v));
      return;
    }
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

bool get_zigzag(std::string_view in, std::size_t& at, std::int64_t& value) {
  std::uint64_t v = 0;
  for (int i = 0; i < 9; ++i) {
    if (at >= in.size()) return false;
    const auto byte = static_cast<unsigned char>(in[at++]);
    if (i == 8) {
      v |= static_cast<std::uint64_t>(byte) << 56;
      break;
    }
    v |= static_cast<std::uint64_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) break;
  }
  value = static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
  return true;
}

template <class Count>
std::string payload(std::span<const Count> counts) {
  std::string out;
  std::size_t used = counts.size();
  while (used > 0 && counts[used - 1] == 0)
    --used;
  for (std::size_t i = 0; i < used;) {
    if (counts[i] != 0) {
      put_zigzag(out, static_cast<std::int64_t>(counts[i++]));
      continue;
    }
    std::int64_t zeros = 0;
    while (i < used && counts[i] == 0) {
      ++zeros;
      ++i;
    }
    put_zigzag(out, zeros > 1 ? -zeros : 0);
  }
  return out;
}

// Reads a payload into out (zeroed first). Fails past out's end or on a negative count.
template <class Count>
Expected<void> read_payload(std::string_view in, std::span<Count> out) {
  std::fill(out.begin(), out.end(), Count{0});
  std::size_t at = 0, index = 0;
  while (at < in.size()) {
    std::int64_t v = 0;
    if (!get_zigzag(in, at, v)) return make_error("histogram payload truncated");
    if (v < 0) {
      if (v == std::numeric_limits<std::int64_t>::min() ||
          static_cast<std::uint64_t>(-v) > out.size() - index) {
        return make_error("histogram payload runs past its buckets");
      }
      index += static_cast<std::size_t>(-v);
      continue;
    }
    if (index >= out.size()) return make_error("histogram payload runs past its buckets");
    if (static_cast<std::uint64_t>(v) > std::numeric_limits<Count>::max()) {
      return make_error("histogram count too large");
    }
    out[index++] = static_cast<Count>(v);
  }
  return {};
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t v = static_cast<std::uint32_t>(get_be(bytes, i, 3));
    for (int s = 18; s >= 0; s -= 6)
      out.push_back(kAlphabet[(v >> s) & 63]);
  }
  const std::size_t left = bytes.size() - i;
  if (left > 0) {
    std::uint32_t v = static_cast<std::uint32_t>(get_be(bytes, i, static_cast<int>(left)));
    v <<= 8 * (3 - left);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(left == 2 ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

Expected<std::string> base64_decode(std::string_view text) {
  static const std::array<int, 256> table = [] {
    std::array<int, 256> t{};
    t.fill(-1);
    for (int i = 0; i < 64; ++i)
      t[static_cast<unsigned char>(kAlphabet[i])] = i;
    return t;
  }();
  if (text.size() % 4 != 0) return make_error("base64 length is not a multiple of 4");
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    std::uint32_t v = 0;
    int pad = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      const char c = text[i + j];
      const bool last = i + 4 == text.size();
      if (c == '=' && last && j >= 2 && (j == 3 || text[i + 3] == '=')) {
        ++pad;
        v <<= 6;
        continue;
      }
      const int d = table[static_cast<unsigned char>(c)];
      if (d < 0 || pad > 0) return make_error("invalid base64");
      v = (v << 6) | static_cast<std::uint32_t>(d);
    }
    out.push_back(static_cast<char>(v >> 16));
    if (pad < 2) out.push_back(static_cast<char>((v >> 8) & 0xff));
    if (pad < 1) out.push_back(static_cast<char>(v & 0xff));
  }
  return out;
}

std::string encode_hdr_base64(const Histogram& h) {
  const std::span<const std::uint64_t> counts = h.counts().first(h.counts_used());
  const std::string body = payload(counts);
  std::string raw;
  put_be(raw, kV2Cookie, 4);
  put_be(raw, body.size(), 4);
  put_be(raw, 0, 4);  // normalizing index offset
  put_be(raw, Histogram::kSignificantDigits, 4);
  put_be(raw, 1, 8);  // lowest discernible value: our finest step is 1 ns
  put_be(raw, Histogram::kHighestTrackableNs, 8);
  double ratio = 1.0;
  std::uint64_t ratio_bits = 0;
  std::memcpy(&ratio_bits, &ratio, sizeof ratio);
  put_be(raw, ratio_bits, 8);
  raw += body;

  uLongf deflated_len = compressBound(static_cast<uLong>(raw.size()));
  std::string deflated(deflated_len, '\0');
  compress2(reinterpret_cast<Bytef*>(deflated.data()), &deflated_len,
            reinterpret_cast<const Bytef*>(raw.data()), static_cast<uLong>(raw.size()),
            Z_DEFAULT_COMPRESSION);
  deflated.resize(deflated_len);
  std::string out;
  put_be(out, kV2CompressedCookie, 4);
  put_be(out, deflated.size(), 4);
  out += deflated;
  return base64_encode(out);
}

Expected<std::vector<std::uint64_t>> decode_hdr_base64(std::string_view text) {
  auto bytes = base64_decode(text);
  if (!bytes) return bytes.error();
  const std::string_view in(*bytes);
  if (in.size() < 8 || get_be(in, 0, 4) != kV2CompressedCookie) {
    return make_error("not an HdrHistogram V2 compressed histogram");
  }
  const std::uint64_t length = get_be(in, 4, 4);
  if (length != in.size() - 8) return make_error("histogram truncated");
  // Inflate in growing steps up to a bound, so a small corrupt input cannot ask for much memory.
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return make_error("cannot inflate histogram");
  std::string raw;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + 8));
  z.avail_in = static_cast<uInt>(length);
  int status = Z_OK;
  while (status == Z_OK) {
    if (raw.size() >= kMaxDecodedBytes) break;
    const std::size_t had = raw.size();
    constexpr std::size_t kStep = 64 * 1024;
    raw.resize(had + kStep);
    z.next_out = reinterpret_cast<Bytef*>(raw.data() + had);
    z.avail_out = kStep;
    status = inflate(&z, Z_NO_FLUSH);
    raw.resize(had + (kStep - std::min<std::size_t>(z.avail_out, kStep)));
  }
  inflateEnd(&z);
  if (status != Z_STREAM_END) return make_error("histogram compressed data is corrupt");
  const std::string_view r(raw);
  if (r.size() < kHeaderBytes || get_be(r, 0, 4) != kV2Cookie) {
    return make_error("not an HdrHistogram V2 histogram");
  }
  if (get_be(r, 4, 4) != r.size() - kHeaderBytes) return make_error("histogram truncated");
  if (get_be(r, 8, 4) != 0 || get_be(r, 12, 4) != Histogram::kSignificantDigits ||
      get_be(r, 16, 8) != 1 ||
      get_be(r, 24, 8) != static_cast<std::uint64_t>(Histogram::kHighestTrackableNs)) {
    return make_error("histogram with other parameters than stampede's (1 ns .. 1 h, 3 digits)");
  }
  std::vector<std::uint64_t> counts(Histogram().counts().size());
  if (auto ok = read_payload(r.substr(kHeaderBytes), std::span<std::uint64_t>(counts)); !ok) {
    return ok.error();
  }
  return counts;
}

std::string encode_counts_base64(std::span<const std::uint32_t> counts) {
  return base64_encode(payload(counts));
}

Expected<void> decode_counts_base64(std::string_view text, std::span<std::uint32_t> out) {
  auto bytes = base64_decode(text);
  if (!bytes) return bytes.error();
  return read_payload(std::string_view(*bytes), out);
}

}  // namespace stampede::stats
