// Fuzz target: the generator's response handling: loadgen::Connection (its state machine, its
// ResponseParser, its error accounting in WorkerStats) over in-memory streams
// (tests/support/fake_connector.h, test_stream.h): no socket, no thread, no clock wait.
// Input: byte 0 flags (bit 0: -k keep-alive; bit 1: HEAD instead of GET; bit 2: two connections
// instead of one; bits 3-6: the split run's read size, 1 to 16 bytes per read; bit 7: the
// server's FIN is seen with its first bytes, else only once they are read), then the bytes the
// server answers. Every connection the generator opens is fed those bytes, then EOF (the server
// answers each connection with them and closes, as a server on a socket would). The run is -n 3
// with a 300 ms timeout: the connections get permits until 3 were given. Readiness edges are
// delivered in rounds (bounded); when a round moves nothing, the earliest timer (a backoff, a
// timeout, the close grace) fires at once (EventLoop::expire_next_timer), as if its time had
// come. Each input runs twice: whole reads, then reads of the flags' size.
// Oracle, for each run: the connections finish (bounded: every request ends in a response, EOF
// or a timer); exactly 3 requests are counted; requests = responses counted by status +
// transport failures; errors = failed responses + transport failures; every status is three
// digits and every failure a documented code for a plain-HTTP run (docs/output.md: ECONNRESET,
// ETIMEDOUT, EPROTO, EPIPE); no local failure. Split oracle, without -k: both runs count the same
// statuses and failures (with -k, where a read ends decides whether the bytes after a response
// are the next response on the same connection or spoil it, as on a socket).
#include <sys/epoll.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "http/writer.h"
#include "loadgen/connection.h"
#include "loadgen/request.h"
#include "loadgen/route.h"
#include "loadgen/worker_stats.h"
#include "net/event_loop.h"
#include "support/fake_connector.h"
#include "support/test_stream.h"

namespace {

namespace loadgen = stampede::loadgen;
namespace net = stampede::net;
using stampede::testing::FakeConnector;
using stampede::testing::TestStream;

constexpr std::uint64_t kRequests = 3;
constexpr std::size_t kReadBufferBytes = 64 * 1024;  // the worker's (loadgen/worker.cc)
constexpr std::int64_t kTimeoutNs = 300'000'000;
constexpr std::size_t kWhole = static_cast<std::size_t>(-1);

struct Flags {
  bool keep_alive;
  bool head;
  std::size_t clients;
  std::size_t read_size;
  bool early_fin;
};

// One generator run over streams that answer `reply`: a worker's part, driven by hand.
class GeneratorRun final : public loadgen::ConnectionOwner {
 public:
  GeneratorRun(const Flags& flags, std::string_view reply, std::size_t read_size)
      : flags_(flags), reply_(reply), read_buffer_(kReadBufferBytes) {
    auto loop = net::EventLoop::create(net::IoBackend::Epoll);
    FUZZ_CHECK(loop.ok(), "event loop: %s", loop.ok() ? "" : loop.error().message.c_str());
    loop_ = std::move(loop).value();
    stampede::http::RequestSpec spec;
    spec.method = flags.head ? "HEAD" : "GET";
    spec.host = "127.0.0.1:8080";
    spec.keep_alive = flags.keep_alive;
    request_ = loadgen::RequestTemplate::build(spec, "");
    context_.loop = loop_.get();
    context_.owner = this;
    context_.stats = &stats_;
    context_.request = &request_;
    context_.read_buffer = read_buffer_;
    context_.keep_alive = flags.keep_alive;
    context_.head_request = flags.head;
    context_.timeout_ns = kTimeoutNs;
    shared_.prepare = [this, read_size](TestStream& stream) {
      stream.feed(reply_);
      stream.feed_eof();
      stream.set_read_limit(read_size);
    };
  }

  // Runs until every connection finished; false when the rounds ran out first.
  bool run() {
    for (std::size_t i = 0; i < flags_.clients; ++i) {
      auto connector = std::make_unique<FakeConnector>(shared_);
      connectors_.push_back(connector.get());
      connections_.push_back(std::make_unique<loadgen::Connection>(context_, std::move(connector)));
    }
    for (auto& connection : connections_)
      connection->start();
    // A read of one byte per round and connection, over a few connections, plus the timers.
    const std::size_t max_rounds = 16 * (reply_.size() + 16);
    for (std::size_t round = 0; round < max_rounds; ++round) {
      if (finished_ == connections_.size()) return true;
      const std::size_t before = progress();
      for (std::size_t i = 0; i < connections_.size(); ++i) {
        if (!connections_[i]->finished()) connections_[i]->on_events(events(*connectors_[i]));
      }
      if (progress() == before && !loop_->expire_next_timer()) return false;
    }
    return finished_ == connections_.size();
  }

  const loadgen::WorkerStats& stats() const { return stats_; }

  loadgen::SendPermit next_send(std::int64_t) override {
    if (given_ == kRequests) return {};
    return loadgen::SendPermit{true, 0, ++given_};
  }
  void hold(loadgen::Connection&, std::int64_t) override {
    FUZZ_CHECK(false, "a permit due at once was held");
  }
  void on_finished() override { ++finished_; }
  void stop_run() override {}

 private:
  // What a socket would report now: readable and writable (the bytes and the FIN are there from
  // the start), the FIN with them or once they are read.
  std::uint32_t events(FakeConnector& connector) const {
    std::uint32_t events = EPOLLIN | EPOLLOUT;
    const auto* stream = static_cast<const TestStream*>(connector.stream());
    if (flags_.early_fin || (stream != nullptr && stream->unread() == 0)) events |= EPOLLRDHUP;
    return events;
  }
  // Changes whenever a connection did anything: a stream operation, a new stream, a record.
  std::size_t progress() const {
    std::size_t sum = shared_.streams.size() + stats_.requests();
    for (const auto& stream : shared_.streams)
      sum += stream->operations();
    return sum;
  }

  Flags flags_;
  std::string_view reply_;
  std::unique_ptr<net::EventLoop> loop_;
  loadgen::RequestTemplate request_;
  std::vector<char> read_buffer_;
  loadgen::WorkerStats stats_;
  loadgen::ConnectionContext context_;
  FakeConnector::Shared shared_;
  std::vector<FakeConnector*> connectors_;  // each owned by its connection
  std::vector<std::unique_ptr<loadgen::Connection>> connections_;
  std::uint64_t given_ = 0;
  std::size_t finished_ = 0;
};

bool documented_failure(int err) {
  const std::string name = loadgen::failure_name(err);
  return name == "ECONNRESET" || name == "ETIMEDOUT" || name == "EPROTO" || name == "EPIPE";
}

// The accounting oracle of one run (`what`: "whole" or "split").
void check_counts(const loadgen::WorkerStats& s, const char* what) {
  using loadgen::WorkerStats;
  FUZZ_CHECK(s.requests() == kRequests, "%s: %llu requests counted", what,
             static_cast<unsigned long long>(s.requests()));
  FUZZ_CHECK(s.custom_errors().empty() && s.relabelled().empty(), "%s: a custom error code", what);
  std::uint64_t responses = 0;
  std::uint64_t failed_responses = 0;
  for (int status = 0; status < WorkerStats::kMaxStatus; ++status) {
    const std::uint64_t n = s.status_count(status);
    if (n == 0) continue;
    FUZZ_CHECK(status >= 100, "%s: status %d counted", what, status);
    responses += n;
    if (WorkerStats::is_error_status(status)) failed_responses += n;
  }
  std::uint64_t transport = 0;
  for (int err = 0; err < WorkerStats::kMaxErrno; ++err) {
    const std::uint64_t n = s.failure_count(err);
    if (n == 0) continue;
    FUZZ_CHECK(!WorkerStats::is_local_failure(err), "%s: local failure %s", what,
               loadgen::failure_name(err).c_str());
    FUZZ_CHECK(documented_failure(err), "%s: undocumented failure %d (%s)", what, err,
               loadgen::failure_name(err).c_str());
    transport += n;
  }
  FUZZ_CHECK(responses + transport == s.requests(),
             "%s: %llu responses + %llu transport failures != %llu requests", what,
             static_cast<unsigned long long>(responses), static_cast<unsigned long long>(transport),
             static_cast<unsigned long long>(s.requests()));
  FUZZ_CHECK(failed_responses + transport == s.errors(),
             "%s: errors %llu != failed responses %llu + transport %llu", what,
             static_cast<unsigned long long>(s.errors()),
             static_cast<unsigned long long>(failed_responses),
             static_cast<unsigned long long>(transport));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > 8192) return 0;
  const std::uint8_t bits = data[0];
  const Flags flags{(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0 ? 2u : 1u,
                    static_cast<std::size_t>((bits >> 3) & 15) + 1, (bits & 128) != 0};
  const std::string_view reply(reinterpret_cast<const char*>(data) + 1, size - 1);

  GeneratorRun whole(flags, reply, kWhole);
  FUZZ_CHECK(whole.run(), "whole: the connections did not finish");
  check_counts(whole.stats(), "whole");
  GeneratorRun split(flags, reply, flags.read_size);
  FUZZ_CHECK(split.run(), "split %zu: the connections did not finish", flags.read_size);
  check_counts(split.stats(), "split");
  if (!flags.keep_alive) {
    FUZZ_CHECK(whole.stats().statuses() == split.stats().statuses(),
               "statuses differ between whole reads and reads of %zu bytes", flags.read_size);
    FUZZ_CHECK(whole.stats().failures() == split.stats().failures(),
               "failures differ between whole reads and reads of %zu bytes", flags.read_size);
  }
  return 0;
}
