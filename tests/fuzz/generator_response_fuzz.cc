// Fuzz target: the generator's response handling: loadgen::Connection (its state machine, its
// ResponseParser, its error accounting in WorkerStats) over in-memory streams
// (tests/support/in_memory_generator.h): no socket, no thread, no clock wait.
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
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "loadgen/route.h"
#include "loadgen/worker_stats.h"
#include "support/in_memory_generator.h"

namespace {

namespace loadgen = stampede::loadgen;
using stampede::testing::InMemoryGeneratorRun;
using stampede::testing::InMemoryRunParams;

constexpr std::uint64_t kRequests = 3;
constexpr std::int64_t kTimeoutNs = 300'000'000;

struct Flags {
  bool keep_alive;
  bool head;
  std::size_t clients;
  std::size_t read_size;
  bool early_fin;
};

// One generator run over streams that answer `reply` (support/in_memory_generator.h).
InMemoryRunParams run_params(const Flags& flags, std::string_view reply, std::size_t read_size) {
  InMemoryRunParams p;
  p.reply = reply;
  p.keep_alive = flags.keep_alive;
  p.head = flags.head;
  p.clients = flags.clients;
  p.requests = kRequests;
  p.timeout_ns = kTimeoutNs;
  p.read_size = read_size;
  p.early_fin = flags.early_fin;
  return p;
}

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

  InMemoryGeneratorRun whole(run_params(flags, reply, InMemoryRunParams::kWhole));
  FUZZ_CHECK(whole.run(), "whole: the connections did not finish");
  FUZZ_CHECK(!whole.held_a_permit(), "whole: a permit due at once was held");
  check_counts(whole.stats(), "whole");
  InMemoryGeneratorRun split(run_params(flags, reply, flags.read_size));
  FUZZ_CHECK(split.run(), "split %zu: the connections did not finish", flags.read_size);
  FUZZ_CHECK(!split.held_a_permit(), "split: a permit due at once was held");
  check_counts(split.stats(), "split");
  if (!flags.keep_alive) {
    FUZZ_CHECK(whole.stats().statuses() == split.stats().statuses(),
               "statuses differ between whole reads and reads of %zu bytes", flags.read_size);
    FUZZ_CHECK(whole.stats().failures() == split.stats().failures(),
               "failures differ between whole reads and reads of %zu bytes", flags.read_size);
  }
  return 0;
}
