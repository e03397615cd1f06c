// Fuzz target: ws::Session (WebSocket framing over wslay, our close handling), over the bytes
// a peer sends after the handshake.
// Input: byte 0 flags (bit 0: we are the client, else the server; bit 1: a 64-byte message
// limit, to reach 1009; bit 2: the handler echoes every message, as `stampede serve` does;
// bit 3: the handler closes on the first message), byte 1 the split point, then the stream.
// Oracle: whole, split and byte-by-byte feeding deliver the same messages, write the same
// output and end in the same state (failure code, close received, received code); a delivered
// text message is valid UTF-8 (wslay's check agrees with ws::valid_utf8); feed() fails only
// when out of memory, which it never is here.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "ws/session.h"
#include "ws/utf8.h"

namespace {

using stampede::ws::Message;
using stampede::ws::Role;
using stampede::ws::Session;

struct Options {
  Role role = Role::Server;
  std::uint64_t max_message_bytes = std::uint64_t{16} << 20;
  bool echo = false;
  bool close_on_message = false;
};

struct Recorder : stampede::ws::SessionHandler {
  explicit Recorder(const Options& o) : options(o) {}
  void on_message(const Message& m) override {
    if (m.text) {
      FUZZ_CHECK(stampede::ws::valid_utf8(m.payload), "text message of %zu bytes not UTF-8",
                 m.payload.size());
    }
    FUZZ_CHECK(m.payload.size() <= options.max_message_bytes, "message of %zu bytes over %llu",
               m.payload.size(), static_cast<unsigned long long>(options.max_message_bytes));
    trace += (m.text ? "text:" : "binary:") + std::string(m.payload) + "\n";
    if (options.echo) session->send(m);
    if (options.close_on_message) session->close(stampede::ws::kCloseNormal, "bye");
  }
  Options options;
  Session* session = nullptr;
  std::string trace;
};

// `bytes` with non-printable bytes as \xHH, for the failure message.
std::string escaped(std::string_view bytes) {
  std::string out;
  for (char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f && c != '\\') {
      out += c;
    } else if (c == '\n') {
      out += "\n";
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

// Feeds `input` cut at `cuts` and returns what happened: messages, output, final state.
std::string run(const Options& options, std::string_view input,
                const std::vector<std::size_t>& cuts) {
  Recorder recorder(options);
  Session session(options.role, recorder, {options.max_message_bytes});
  recorder.session = &session;
  FUZZ_CHECK(session.reset(42), "reset failed");
  std::string output;
  std::size_t start = 0;
  std::vector<std::size_t> ends = cuts;
  ends.push_back(input.size());
  for (std::size_t end : ends) {
    FUZZ_CHECK(session.feed(input.data() + start, end - start), "feed failed");
    output += session.output();
    session.consume_output(session.output().size());
    start = end;
  }
  const std::uint16_t failure = session.failure();
  FUZZ_CHECK(failure == 0 || failure == 1002 || failure == 1007 || failure == 1009,
             "failure code %u", failure);
  if (failure != 0) FUZZ_CHECK(!session.reading() && session.close_sent(), "failed but open");
  return recorder.trace + "output:" + output + "\nfailure=" + std::to_string(failure) +
         " reading=" + std::to_string(session.reading()) +
         " close_received=" + std::to_string(session.close_received()) +
         " received_code=" + std::to_string(session.received_code()) +
         " close_sent=" + std::to_string(session.close_sent()) + "\n";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  Options options;
  options.role = (data[0] & 1) != 0 ? Role::Client : Role::Server;
  if ((data[0] & 2) != 0) options.max_message_bytes = 64;
  options.echo = (data[0] & 4) != 0;
  options.close_on_message = (data[0] & 8) != 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 2, size - 2);
  const std::size_t cut = input.size() * data[1] / 255;

  const std::string whole = run(options, input, {});
  if (cut > 0 && cut < input.size()) {
    const std::string split = run(options, input, {cut});
    FUZZ_CHECK(split == whole, "split at %zu changes the outcome:\nwhole:\n%s\nsplit:\n%s", cut,
               escaped(whole).c_str(), escaped(split).c_str());
  }
  if (input.size() > 1 && input.size() <= 512) {
    std::vector<std::size_t> every;
    for (std::size_t i = 1; i < input.size(); ++i)
      every.push_back(i);
    const std::string bytewise = run(options, input, every);
    FUZZ_CHECK(bytewise == whole, "byte by byte changes the outcome:\nwhole:\n%s\nbytewise:\n%s",
               escaped(whole).c_str(), escaped(bytewise).c_str());
  }
  return 0;
}
