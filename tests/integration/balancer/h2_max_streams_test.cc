// --max-streams: the HTTP/2 front's SETTINGS_MAX_CONCURRENT_STREAMS. A client that opens more
// streams than that is refused as nghttp2 1.52 does it (RFC 9113 5.1.2 allows a stream error of
// PROTOCOL_ERROR or REFUSED_STREAM): streams past the limit before our SETTINGS are acknowledged
// get RST_STREAM REFUSED_STREAM and the connection goes on; past the acknowledged limit, nghttp2
// ends the connection with GOAWAY PROTOCOL_ERROR. The process stays up either way. The option's
// range and help are checked here too.
#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "lb_support.h"
#include "support/h2_client_session.h"
#include "support/loopback.h"
#include "support/process.h"

namespace stampede::balancer::testing {
namespace maxstreams {

// One HTTP/2 frame as it came on the wire.
struct RawFrame {
  std::uint8_t type = 0;
  std::uint8_t flags = 0;
  std::uint32_t stream = 0;
  std::string payload;
};

// The complete frames at the start of `bytes` (those cut short at its end are left out).
std::vector<RawFrame> split_frames(std::string_view bytes) {
  std::vector<RawFrame> out;
  while (bytes.size() >= 9) {
    const auto u = [&](std::size_t i) { return static_cast<std::uint8_t>(bytes[i]); };
    const std::size_t length = (std::size_t{u(0)} << 16) | (std::size_t{u(1)} << 8) | u(2);
    if (bytes.size() < 9 + length) break;
    out.push_back({u(3), u(4),
                   ((std::uint32_t{u(5)} << 24) | (u(6) << 16) | (u(7) << 8) | u(8)) & 0x7fffffffu,
                   std::string(bytes.substr(9, length))});
    bytes.remove_prefix(9 + length);
  }
  return out;
}

std::uint32_t error_code_at(const std::string& payload, std::size_t at) {
  if (payload.size() < at + 4) return ~0u;
  const auto u = [&](std::size_t i) {
    return std::uint32_t{static_cast<std::uint8_t>(payload[i])};
  };
  return (u(at) << 24) | (u(at + 1) << 16) | (u(at + 2) << 8) | u(at + 3);
}

// A blocking loopback connection that reads until `done(received bytes)`, EOF or 5 s.
class Wire {
 public:
  explicit Wire(std::uint16_t port) : fd_(stampede::testing::connect_loopback(port)) {}
  bool send(std::string_view bytes) { return stampede::testing::send_all(fd_.get(), bytes); }
  const std::string& received() const { return in_; }
  bool read_until(const std::function<bool(std::string_view)>& done) {
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (!done(in_)) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd p{fd_.get(), POLLIN, 0};
      if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
      char buffer[16384];
      const ssize_t n = ::recv(fd_.get(), buffer, sizeof buffer, 0);
      if (n <= 0) return done(in_);
      in_.append(buffer, static_cast<std::size_t>(n));
    }
    return true;
  }

 private:
  net::Fd fd_;
  std::string in_;
};

bool has_frame(std::string_view bytes, const std::function<bool(const RawFrame&)>& match) {
  const auto frames = split_frames(bytes);
  return std::any_of(frames.begin(), frames.end(), match);
}

// Backend "e" behind a balancer that announces SETTINGS_MAX_CONCURRENT_STREAMS 2.
EchoBehindBalancer limited_to_two_streams() {
  return EchoBehindBalancer({.name = "e"}, [](BalancerConfig& c) { c.max_streams = 2; });
}

// Three requests in the client's first flight, before it has seen our SETTINGS: nghttp2 holds
// them to the limit it announced (pending acknowledgement) and refuses the third.
TEST(H2MaxStreams, StreamsPastTheAnnouncedLimitAreRefusedAndTheOthersAnswered) {
  EchoBehindBalancer setup = limited_to_two_streams();
  ASSERT_TRUE(setup.ok());
  stampede::testing::H2ClientSession client;
  std::vector<std::int32_t> ids;
  for (int i = 0; i < 3; ++i)
    ids.push_back(client.request("GET", "/", "front.test"));
  Wire wire(setup.port());
  ASSERT_TRUE(wire.send(client.take_output()));
  std::size_t fed = 0;
  ASSERT_TRUE(wire.read_until([&](std::string_view in) {
    client.receive(in.substr(fed));
    fed = in.size();
    wire.send(client.take_output());  // SETTINGS ACK, WINDOW_UPDATEs
    return client.answered(ids[0]) && client.answered(ids[1]) && client.reset_codes.count(ids[2]);
  }));
  EXPECT_EQ(client.reset_codes[ids[2]], NGHTTP2_REFUSED_STREAM);
  EXPECT_EQ(client.answers[ids[0]].status, 200);
  EXPECT_EQ(client.answers[ids[1]].status, 200);
  EXPECT_EQ(client.goaway_code, -1);
  EXPECT_EQ(setup.echo.request_count(), 2u);
  // The refused stream may be retried on the same connection.
  const std::int32_t again = client.request("GET", "/", "front.test");
  ASSERT_TRUE(wire.send(client.take_output()));
  ASSERT_TRUE(wire.read_until([&](std::string_view in) {
    client.receive(in.substr(fed));
    fed = in.size();
    return client.answered(again);
  }));
  EXPECT_EQ(client.answers[again].status, 200);
}

// A client that acknowledged SETTINGS_MAX_CONCURRENT_STREAMS 2 and still opens a third stream:
// nghttp2 1.52 ends the connection (GOAWAY PROTOCOL_ERROR); the balancer serves the next one.
TEST(H2MaxStreams, AStreamPastTheAcknowledgedLimitEndsTheConnectionNotTheProcess) {
  EchoBehindBalancer setup = limited_to_two_streams();
  ASSERT_TRUE(setup.ok());
  // This session only encodes: it never hears the balancer, so it does not hold the third
  // stream back. The test acknowledges the balancer's SETTINGS itself.
  stampede::testing::H2ClientSession forger;
  Wire wire(setup.port());
  ASSERT_TRUE(wire.send(forger.take_output()));  // preface and SETTINGS
  ASSERT_TRUE(wire.read_until([](std::string_view in) {
    return has_frame(in, [](const RawFrame& f) {
      return f.type == NGHTTP2_SETTINGS && (f.flags & NGHTTP2_FLAG_ACK) == 0;
    });
  }));
  // SETTINGS ACK, then three requests.
  std::string burst("\0\0\0\x04\x01\0\0\0\0", 9);
  for (int i = 0; i < 3; ++i)
    forger.request("GET", "/", "front.test");
  burst += forger.take_output();
  ASSERT_TRUE(wire.send(burst));
  ASSERT_TRUE(wire.read_until([](std::string_view in) {
    return has_frame(in, [](const RawFrame& f) { return f.type == NGHTTP2_GOAWAY; });
  }));
  for (const RawFrame& f : split_frames(wire.received())) {
    if (f.type == NGHTTP2_GOAWAY) {
      EXPECT_EQ(error_code_at(f.payload, 4), std::uint32_t{NGHTTP2_PROTOCOL_ERROR});
    }
  }
  auto r = http_get(setup.port(), "/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST(H2MaxStreams, TheOptionIsRangeCheckedAndDocumentedInHelp) {
  BalancerConfig c;
  for (const char* bad : {"0", "10001", "1.5", "1e3", "many"}) {
    auto r = apply_setting(c, "max-streams", bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().message,
              std::string("--max-streams must be a whole number in 1..10000, got '") + bad + "'");
  }
  ASSERT_TRUE(apply_setting(c, "max-streams", "10000"));
  EXPECT_EQ(c.max_streams, 10000);
  const auto zero = stampede::testing::run_stampede(
      {"balance", "--listen", "127.0.0.1:0", "--backend", "e=127.0.0.1:1", "--max-streams", "0"});
  EXPECT_EQ(zero.status, 2);
  EXPECT_EQ(zero.err, "stampede: --max-streams must be a whole number in 1..10000, got '0'\n");
  const auto help = stampede::testing::run_stampede({"balance", "--help"});
  EXPECT_EQ(help.status, 0);
  const std::size_t at = help.out.find("--max-streams N");
  ASSERT_NE(at, std::string::npos) << help.out;
  EXPECT_NE(help.out.find("default 128", at), std::string::npos) << help.out;
}

}  // namespace maxstreams
}  // namespace stampede::balancer::testing
