// Histograms as text, losslessly: HdrHistogram's V2 compressed encoding, base64 (what
// HdrHistogram's HistogramLogWriter writes and every HdrHistogram library decodes:
// Java's Histogram.decodeFromCompressedByteBuffer, hdr-histogram-js's decodeFromCompressedBase64).
//
// Our Histogram's buckets are exactly HdrHistogram's for lowestDiscernibleValue 1,
// highestTrackableValue 3.6e12 (1 hour in ns) and 3 significant digits, so its counts array is
// the encoded one, index for index. The exact min, max, sum and sum of squares, which the
// encoding does not carry, are kept beside it by the caller (loadgen/result_file.h).
//
// The same zig-zag LEB128 run-length payload, without header and compression, holds the
// timeline rows' sketches (encode_counts / decode_counts).
//
// Pure functions; any thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "stats/histogram.h"

namespace stampede::stats {

// The counts of h (up to its last non-empty bucket) in the V2 compressed encoding, base64.
std::string encode_hdr_base64(const Histogram& h);
// The counts array of a V2 compressed, base64 histogram with our parameters (lowest 1, highest
// 3.6e12, 3 digits, no normalizing offset). Fails on anything else, or corrupt input.
Expected<std::vector<std::uint64_t>> decode_hdr_base64(std::string_view text);

// Counts as HdrHistogram's V2 payload (zig-zag LEB128, a run of zeros as its negated length),
// base64; trailing zeros are left out.
std::string encode_counts_base64(std::span<const std::uint32_t> counts);
// Back into `out` (zeroed first; its size is the most counts accepted).
Expected<void> decode_counts_base64(std::string_view text, std::span<std::uint32_t> out);

std::string base64_encode(std::string_view bytes);
Expected<std::string> base64_decode(std::string_view text);

}  // namespace stampede::stats
