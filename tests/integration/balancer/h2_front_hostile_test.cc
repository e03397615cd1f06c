// The balancer's HTTP/2 front against hostile clients that write raw frames (support/h2_frames.h)
// and do not read: floods of SETTINGS and of empty DATA frames (padded ones too) end with GOAWAY
// ENHANCE_YOUR_CALM in bounded memory, and each frame the protocol forbids ends its connection
// with GOAWAY and the code RFC 9113 names, while the balancer keeps serving other connections.
// (The PING flood, the rapid reset, the HPACK bomb and the zero window: h2_front_test.cc.)
#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>
#include <unistd.h>

#include <array>
#include <memory>
#include <string>

#include "h2_peer.h"
#include "lb_support.h"
#include "support/h2_frames.h"
#include "support/proc_stats.h"

namespace stampede::balancer::testing {
namespace h2hostile {

using stampede::testing::goaway_code;

// Ten times the flood guard's 500 a second, and five times nghttp2's own limit of 1000 unsent
// acknowledgements, in one write: the guard must speak (GOAWAY) before nghttp2 gives up in
// silence.
constexpr int kThousands = 5000;
// The balancer runs in this process: its resident set is ours.
long rss_kib() {
  return stampede::testing::memory(getpid()).rss_kib;
}

// Four connections each write `flood` without reading what comes back; then each must read a
// GOAWAY ENHANCE_YOUR_CALM and a close, the process must have grown by less than 16 MiB, the
// streams opened must be given up, and a fresh connection must be answered.
void expect_cut_off(const std::string& flood) {
  EchoBehindBalancer setup;
  ASSERT_TRUE(setup.ok());
  const long before = rss_kib();
  std::array<std::unique_ptr<H2Peer>, 4> peers;
  for (auto& peer : peers) {
    peer = std::make_unique<H2Peer>(setup.port());
    // The balancer may close (and reset) before the last frame is written: no verdict here.
    peer->send_raw(peer->take() + flood);
  }
  for (auto& peer : peers) {
    EXPECT_EQ(goaway_code(peer->read_raw_to_eof()), NGHTTP2_ENHANCE_YOUR_CALM);
    EXPECT_TRUE(peer->eof);
  }
  const long grown = rss_kib() - before;
  ::testing::Test::RecordProperty("rss_growth_kib", std::to_string(grown));
  EXPECT_LT(grown, 16 * 1024) << "KiB";
  EXPECT_TRUE(eventually([&] { return backend_stats(*setup.lb, "e")["in_flight"] == 0; }, 2000ms));
  EXPECT_EQ(fresh_get_status(setup.port()), 200);
}

TEST(H2FrontHostile, SettingsFloodNeverReadEndsWithEnhanceYourCalm) {
  expect_cut_off(stampede::testing::flood_of(h2::Costly::Settings, kThousands));
}

TEST(H2FrontHostile, EmptyDataFloodOnAnOpenStreamEndsWithEnhanceYourCalm) {
  expect_cut_off(stampede::testing::flood_of(h2::Costly::Empty, kThousands));
}

// DATA frames with the PADDED flag and a pad length of 0: one byte of payload, no data. As
// costly as empty ones, and not empty to a count of payload lengths.
TEST(H2FrontHostile, PaddedEmptyDataFloodEndsWithEnhanceYourCalm) {
  expect_cut_off(stampede::testing::flood_of(h2::Costly::Empty, kThousands, true));
}

// HEADERS frames with an empty header block on new streams: each a malformed request that
// nghttp2 answers with a RST_STREAM of ours (the reset flood of CVE-2019-9514). Before the guard
// counted them, 4 x 200 000 of them got 200 000 RST_STREAMs each and no GOAWAY.
TEST(H2FrontHostile, MalformedHeadersFloodEndsWithEnhanceYourCalm) {
  expect_cut_off(stampede::testing::flood_of(h2::Costly::Invalid, kThousands));
}

TEST(H2FrontHostile, ForbiddenFramesGetTheirGoawayAndOtherConnectionsLive) {
  EchoBehindBalancer setup;
  ASSERT_TRUE(setup.ok());
  H2Peer other(setup.port());  // a client that behaves, open all along
  std::size_t asked = 0;
  const auto other_answers = [&] {
    const std::int32_t id = other.request("GET", "/other");
    ++asked;
    return other.pump([&] { return other.answered(id); }) && other.answers[id].status == 200;
  };
  ASSERT_TRUE(other_answers());
  for (const stampede::testing::ForbiddenFrame& c : stampede::testing::forbidden_frames()) {
    SCOPED_TRACE(c.what);
    H2Peer peer(setup.port());
    ASSERT_TRUE(peer.send_raw(peer.take() + c.frames));
    EXPECT_EQ(goaway_code(peer.read_raw_to_eof()), c.code);
    EXPECT_TRUE(peer.eof);
    EXPECT_TRUE(other_answers());
  }
  // No forbidden frame reached a backend as a request.
  EXPECT_EQ(setup.echo.request_count(), asked);
  EXPECT_EQ(other.goaway_code, -1);
}

}  // namespace h2hostile
}  // namespace stampede::balancer::testing
