// src/h2 without sockets: the preface check at every cut, the flood guard's windows and the
// frames it counts, the error names, and a server session (new_server_session(), over
// make_options()/submit_settings()) announcing our limits.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "h2/error_codes.h"
#include "h2/flood_guard.h"
#include "h2/preface.h"
#include "h2/server_session.h"
#include "h2/session_options.h"

namespace stampede::h2 {
namespace {

TEST(H2Preface, EveryPrefixIsPartialAndTheWholeIsComplete) {
  for (std::size_t n = 0; n < kClientPreface.size(); ++n) {
    EXPECT_EQ(match_preface(kClientPreface.substr(0, n)), PrefaceMatch::Partial) << n;
  }
  EXPECT_EQ(match_preface(kClientPreface), PrefaceMatch::Complete);
  EXPECT_EQ(match_preface(std::string(kClientPreface) + "\x00\x00\x12"), PrefaceMatch::Complete);
}

TEST(H2Preface, AnyDifferentByteIsAMismatch) {
  EXPECT_EQ(match_preface("GET / HTTP/1.1\r\n"), PrefaceMatch::Mismatch);
  EXPECT_EQ(match_preface("PRI * HTTP/1.1\r\n"), PrefaceMatch::Mismatch);
  for (std::size_t i = 0; i < kClientPreface.size(); ++i) {
    std::string bad(kClientPreface.substr(0, i + 1));
    bad[i] ^= 0x20;
    EXPECT_EQ(match_preface(bad), PrefaceMatch::Mismatch) << i;
  }
}

TEST(H2FloodGuard, OverTheLimitInOneSecondFloodsAndStays) {
  FloodGuard guard(FloodLimits{3});
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(guard.note(Costly::Ping, 1'000 + i));
  EXPECT_TRUE(guard.note(Costly::Settings, 2'000));  // each kind counts on its own
  EXPECT_FALSE(guard.note(Costly::Ping, 3'000));
  EXPECT_TRUE(guard.flooded());
  EXPECT_FALSE(guard.note(Costly::Ping, 10'000'000'000));  // ending: stays flooded
}

TEST(H2FloodGuard, ANewSecondStartsAFreshCount) {
  FloodGuard guard(FloodLimits{2});
  std::int64_t now = 0;
  for (int second = 0; second < 5; ++second, now += 1'000'000'000) {
    EXPECT_TRUE(guard.note(Costly::Reset, now));
    EXPECT_TRUE(guard.note(Costly::Reset, now + 999'000'000));
  }
  EXPECT_FALSE(guard.flooded());
}

TEST(H2ErrorCodes, NamesAndUnknown) {
  EXPECT_EQ(error_code_name(0), "NO_ERROR");
  EXPECT_EQ(error_code_name(NGHTTP2_ENHANCE_YOUR_CALM), "ENHANCE_YOUR_CALM");
  EXPECT_EQ(error_code_name(NGHTTP2_HTTP_1_1_REQUIRED), "HTTP_1_1_REQUIRED");
  EXPECT_EQ(error_code_name(0xe), "UNKNOWN");
}

// The SETTINGS frame a server session sends first carries our limits and window.
TEST(H2SessionOptions, ServerAnnouncesItsLimits) {
  const SessionLimits limits{7, 1000, 4096};
  nghttp2_session* server =
      new_server_session([](nghttp2_session_callbacks*) {}, nullptr, limits, false);
  ASSERT_NE(server, nullptr);
  const std::uint8_t* bytes = nullptr;
  const ssize_t n = nghttp2_session_mem_send(server, &bytes);
  ASSERT_GT(n, 9);
  ASSERT_EQ(bytes[3], NGHTTP2_SETTINGS);
  // The entries of that frame (nghttp2 applies them locally only once the peer acks).
  const std::size_t length = (std::size_t{bytes[0]} << 16) | (bytes[1] << 8) | bytes[2];
  std::map<int, std::uint32_t> sent;
  for (std::size_t at = 9; at + 6 <= 9 + length; at += 6) {
    const int id = (bytes[at] << 8) | bytes[at + 1];
    sent[id] = (std::uint32_t{bytes[at + 2]} << 24) | (std::uint32_t{bytes[at + 3]} << 16) |
               (std::uint32_t{bytes[at + 4]} << 8) | bytes[at + 5];
  }
  EXPECT_EQ(sent[NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS], 7u);
  EXPECT_EQ(sent[NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE], static_cast<std::uint32_t>(kMaxWindow));
  EXPECT_EQ(sent[NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE], 1000u);
  EXPECT_EQ(nghttp2_session_get_local_window_size(server), kMaxWindow);
  nghttp2_session_del(server);
}

nghttp2_frame_hd header(std::uint8_t type, std::uint8_t flags, std::size_t length = 0) {
  nghttp2_frame_hd hd{};
  hd.type = type;
  hd.flags = flags;
  hd.length = length;
  hd.stream_id = type == NGHTTP2_SETTINGS || type == NGHTTP2_PING ? 0 : 1;
  return hd;
}

// Only the frames a peer sends at no cost count: two of a kind pass, the third floods. A padded
// DATA frame with no data is as empty as one with no payload (nghttp2's padlen counts the Pad
// Length field).
TEST(H2FloodGuard, NoteFrameCountsCostlessFramesOnly) {
  const auto padded = [](std::size_t length, std::size_t padlen) {
    nghttp2_frame f{};
    f.data.hd = header(NGHTTP2_DATA, NGHTTP2_FLAG_PADDED, length);
    f.data.padlen = padlen;
    return f;
  };
  const auto of = [](nghttp2_frame_hd hd) {
    nghttp2_frame f{};
    f.hd = hd;
    return f;
  };
  const struct {
    nghttp2_frame frame;
    bool counted;
  } cases[] = {
      {of(header(NGHTTP2_SETTINGS, NGHTTP2_FLAG_NONE)), true},
      {of(header(NGHTTP2_SETTINGS, NGHTTP2_FLAG_ACK)), false},
      {of(header(NGHTTP2_PING, NGHTTP2_FLAG_NONE, 8)), true},
      {of(header(NGHTTP2_PING, NGHTTP2_FLAG_ACK, 8)), false},
      {of(header(NGHTTP2_RST_STREAM, NGHTTP2_FLAG_NONE, 4)), true},
      {of(header(NGHTTP2_DATA, NGHTTP2_FLAG_NONE)), true},
      {of(header(NGHTTP2_DATA, NGHTTP2_FLAG_END_STREAM)), false},  // an empty body's end
      {of(header(NGHTTP2_DATA, NGHTTP2_FLAG_NONE, 1)), false},
      {padded(1, 1), true},     // a pad length of 0, no data
      {padded(11, 11), true},   // ten bytes of padding, no data
      {padded(12, 11), false},  // one byte of data
      {of(header(NGHTTP2_HEADERS, NGHTTP2_FLAG_END_HEADERS, 10)), false},
      {of(header(NGHTTP2_WINDOW_UPDATE, NGHTTP2_FLAG_NONE, 4)), false},
  };
  for (const auto& c : cases) {
    const nghttp2_frame_hd& hd = c.frame.hd;
    FloodGuard guard{FloodLimits{2}};
    EXPECT_TRUE(note_frame(guard, c.frame, 0));
    EXPECT_TRUE(note_frame(guard, c.frame, 1));
    EXPECT_EQ(note_frame(guard, c.frame, 2), !c.counted)
        << int{hd.type} << " " << int{hd.flags} << " " << hd.length;
    EXPECT_EQ(guard.flooded(), c.counted);
  }
}

}  // namespace
}  // namespace stampede::h2
