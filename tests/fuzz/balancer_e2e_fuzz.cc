// Fuzz target: the balancer end to end (balancer::ProxySession, UpstreamConn, the pool, retries,
// the tunnel) over in-memory streams (tests/support/test_stream.h), as nginx's OSS-Fuzz harness
// drives nginx: no socket, no thread, no clock wait.
// Input: byte 0 flags (bits 0-1: the client's read limit, 1/7/64/unlimited bytes per read;
// bit 2: pooling on; bit 3: the client half-closes after its bytes; bit 4: every deadline
// expires at the end; bit 5: --retries 0), then sections separated by "\n~~\n": the client's
// bytes, then the bytes each backend connection answers, in the order the balancer opens them
// (two backends, round robin; a connection past the last section gets nothing). A backend
// connection is fed its whole section, then EOF. The client's and the backends' readiness
// edges are delivered in rounds (bounded), then the deadlines (bit 4), then a few more rounds.
// Oracle:
// - every request a backend receives is framed without ambiguity: our strict RequestParser reads
//   each backend's bytes with no error, never a head with both Content-Length and
//   Transfer-Encoding (invalid chunk framing would be a parse error);
// - the backends never see more requests than the balancer accepted: on each connection at
//   most the requests the client completed (heads the same parser read in the client's bytes),
//   over all connections at most that many times (retries + 2) (a retry, a stale re-send);
// - no backend connection is reused after an error: a connection that got a second request
//   had answered the first with one complete, valid, keep-alive response and nothing more;
// - what the client receives parses as responses (unless a HEAD or a 101 makes a response
//   unparseable without the request; then only no crash); no head with both framings;
// - no crash, no sanitizer report, the session ends its rounds (no livelock: bounded loops).
// A client whose bytes begin with the HTTP/2 preface (or a part of it) takes the balancer's h2c
// path (balancer/h2_session.h): its requests are frames, not heads, so for it the oracle keeps
// the backends' framing and reuse checks and the bounded rounds, not the request counts or the
// client's HTTP/1.1 output. round() delivers backend events through the ProxySession only, so
// for those inputs the backends' answers are not read back into the streams yet; but each round
// ends with one turn of the worker's loop, whose timers include the HTTP/2 front's flush: the
// gathered writes of its frames to the client are fuzzed.
// The loop frees what closed (sessions, upstream connections, their streams) when it turns, so
// the harness never reads a stream after a round: every stream is a RecordedStream that copies
// what it writes into a Record the harness owns, and says when it is gone.
#include <sys/epoll.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "balancer/backend.h"
#include "balancer/proxy_session.h"
#include "balancer/upstream_opener.h"
#include "balancer/worker.h"
#include "core/error_line.h"
#include "fuzz_check.h"
#include "h2/preface.h"
#include "http/request_parser.h"
#include "http/response_parser.h"
#include "net/event_loop.h"
#include "net/stream.h"
#include "support/stream_connector.h"
#include "support/test_stream.h"

namespace {

namespace balancer = stampede::balancer;
namespace http = stampede::http;
using stampede::testing::TestStream;

constexpr std::string_view kSeparator = "\n~~\n";
constexpr int kRounds = 48;

// What a stream wrote, kept by the harness after the balancer freed the stream.
struct Record {
  std::string written;
  bool gone = false;  // the stream was freed
};

// A TestStream (owned) that copies what it writes into `record`, and marks it gone at its end.
class RecordedStream final : public stampede::net::Stream {
 public:
  using IoStatus = stampede::net::IoStatus;
  RecordedStream(std::unique_ptr<TestStream> inner, Record& record)
      : inner_(std::move(inner)), record_(record) {}
  ~RecordedStream() override { record_.gone = true; }

  int fd() const override { return inner_->fd(); }
  IoStatus handshake() override { return inner_->handshake(); }
  IoStatus read(char* buffer, std::size_t capacity, std::size_t& n) override {
    return inner_->read(buffer, capacity, n);
  }
  IoStatus write(const char* data, std::size_t length, std::size_t& n) override {
    return copied(inner_->write(data, length, n));
  }
  IoStatus writev(const iovec* parts, int count, std::size_t& n) override {
    return copied(inner_->writev(parts, count, n));
  }
  void shutdown_write() override { inner_->shutdown_write(); }
  bool wants_write() const override { return inner_->wants_write(); }
  int error() const override { return inner_->error(); }

 private:
  // written() only grows: copy its new tail.
  IoStatus copied(IoStatus status) {
    record_.written.append(inner_->written(), record_.written.size());
    return status;
  }

  std::unique_ptr<TestStream> inner_;
  Record& record_;
};

// Hands out connectors over TestStreams fed with the next backend section (then EOF).
class SectionOpener final : public balancer::UpstreamOpener {
 public:
  explicit SectionOpener(std::vector<std::string_view> replies) : replies_(std::move(replies)) {}

  std::unique_ptr<stampede::net::Connector> connector(const balancer::BackendState&) override {
    auto stream = std::make_unique<TestStream>();
    if (next_ < replies_.size()) {
      stream->feed(replies_[next_]);
      replies.push_back(replies_[next_]);
    } else {
      replies.push_back({});
    }
    ++next_;
    stream->feed_eof();
    records.emplace_back();
    return std::make_unique<stampede::testing::StreamConnector>(
        std::make_unique<RecordedStream>(std::move(stream), records.back()));
  }

  std::deque<Record> records;             // every connection opened, in order
  std::vector<std::string_view> replies;  // what each was fed

 private:
  std::vector<std::string_view> replies_;
  std::size_t next_ = 0;
};

bool both_framings(std::span<const http::Header> headers) {
  bool cl = false, te = false;
  for (const http::Header& h : headers) {
    cl = cl || http::iequals(h.name, "content-length");
    te = te || http::iequals(h.name, "transfer-encoding");
  }
  return cl && te;
}

// Complete request heads in `bytes` until the end, the first error (`error` set) or the end
// of an Upgrade request.
std::size_t count_requests(std::string_view bytes, bool& error, bool check_framing) {
  http::RequestParser parser;
  std::size_t heads = 0;
  error = false;
  for (int guard = 0; guard < 10000 && !bytes.empty(); ++guard) {
    http::Step step = parser.feed(bytes.data(), bytes.size());
    FUZZ_CHECK(step.consumed <= bytes.size(), "consumed %zu of %zu", step.consumed, bytes.size());
    bytes.remove_prefix(step.consumed);
    if (step.event == http::Event::Error) {
      error = true;
      break;
    }
    if (step.event == http::Event::HeadComplete) {
      ++heads;
      if (check_framing) {
        FUZZ_CHECK(!both_framings(parser.headers()), "a request forwarded with CL and TE");
      }
    }
    if (step.event == http::Event::NeedMore) break;
    // After an Upgrade request the bytes may be a tunnel's: not HTTP any more.
    if (step.event == http::Event::MessageComplete && parser.upgrade()) break;
  }
  return heads;
}

// Whether `reply` is exactly one complete, valid, keep-alive response (bodiless after a HEAD).
bool one_clean_response(std::string_view reply, bool head) {
  http::ResponseParser parser;
  if (head) parser.expect_no_body();
  std::size_t used = 0;
  for (int guard = 0; guard < 10000 && used <= reply.size(); ++guard) {
    http::Step step = parser.feed(reply.data() + used, reply.size() - used);
    used += step.consumed;
    if (step.event == http::Event::Error || step.event == http::Event::NeedMore) return false;
    if (step.event == http::Event::MessageComplete) {
      return used == reply.size() && parser.keep_alive();
    }
  }
  return false;
}

// The client's bytes parse as responses (stops quietly at a 101 or a cut).
void check_client_output(std::string_view all) {
  http::ResponseParser parser({"content-length", "transfer-encoding"});
  std::string_view bytes = all;
  for (int guard = 0; guard < 10000 && !bytes.empty(); ++guard) {
    http::Step step = parser.feed(bytes.data(), bytes.size());
    bytes.remove_prefix(step.consumed);
    FUZZ_CHECK(step.event != http::Event::Error,
               "the client got an unparseable response (%s at byte %zu of: %s)",
               std::string(parser.error().name).c_str(), all.size() - bytes.size(),
               stampede::printable(all).c_str());
    if (step.event == http::Event::HeadComplete) {
      FUZZ_CHECK(!(parser.captured(0) && parser.captured(1)), "a response with CL and TE");
      if (parser.status() == 101) return;
    }
    if (step.event == http::Event::NeedMore) return;
  }
}

// The client's and the backends' readiness, then one turn of the worker's loop (its timers, the
// front's flush among them; then it frees what closed: `session` too, once `client` is gone).
void round(balancer::ProxySession& session, const Record& client, stampede::net::EventLoop& loop) {
  if (client.gone) return;
  if (!session.closed()) session.on_events(EPOLLIN | EPOLLOUT);
  if (!session.closed()) session.on_upstream_events(EPOLLIN | EPOLLOUT);
  loop.run_once(0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > 16384) return 0;
  const std::uint8_t flags = data[0];
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<std::string_view> sections;
  for (std::size_t at = 0;;) {
    const std::size_t sep = input.find(kSeparator, at);
    sections.push_back(input.substr(at, sep == std::string_view::npos ? sep : sep - at));
    if (sep == std::string_view::npos) break;
    at = sep + kSeparator.size();
  }
  const std::string_view client_bytes = sections.front();
  sections.erase(sections.begin());

  balancer::BalancerConfig config;
  config.pool_max_idle = (flags & 4) ? 4 : 0;
  config.retries = (flags & 32) ? 0 : 1;
  std::vector<std::unique_ptr<balancer::BackendState>> states;
  std::vector<balancer::BackendState*> state_ptrs;
  for (std::size_t i = 0; i < 2; ++i) {
    balancer::BackendSpec spec{std::string(1, static_cast<char>('a' + i)), "127.0.0.1:1", 1};
    config.backends.push_back(spec);
    states.push_back(std::make_unique<balancer::BackendState>(i, spec, stampede::net::Address{}));
    state_ptrs.push_back(states.back().get());
  }
  SectionOpener opener(sections);
  balancer::WorkerParams params;
  params.config = &config;
  params.states = state_ptrs;
  params.opener = &opener;
  Record client_record;  // outlives the worker, which frees the client's stream
  auto worker = balancer::Worker::create(std::move(params));
  FUZZ_CHECK(worker.ok(), "worker: %s", worker.ok() ? "" : worker.error().message.c_str());
  (*worker)->loop().update_time();

  auto client = std::make_unique<TestStream>();
  static constexpr std::size_t kLimits[] = {1, 7, 64, std::numeric_limits<std::size_t>::max()};
  client->set_read_limit(kLimits[flags & 3]);
  client->feed(client_bytes);
  if (flags & 8) client->feed_eof();
  balancer::ProxySession* session =
      (*worker)->adopt(std::make_unique<RecordedStream>(std::move(client), client_record), false);
  FUZZ_CHECK(session != nullptr, "adopt failed");

  stampede::net::EventLoop& loop = (*worker)->loop();
  for (int i = 0; i < kRounds; ++i)
    round(*session, client_record, loop);
  if ((flags & 16) && !client_record.gone && !session->closed()) {
    session->on_tick(std::numeric_limits<std::int64_t>::max());
    for (int i = 0; i < 4; ++i)
      round(*session, client_record, loop);
  }

  const bool h2 = stampede::h2::match_preface(client_bytes) != stampede::h2::PrefaceMatch::Mismatch;
  bool client_error = false;
  const std::size_t accepted = h2 ? std::numeric_limits<std::size_t>::max() / 4
                                  : count_requests(client_bytes, client_error, false);
  std::size_t total = 0;
  for (std::size_t i = 0; i < opener.records.size(); ++i) {
    const std::string& written = opener.records[i].written;
    bool error = false;
    const std::size_t heads = count_requests(written, error, true);
    FUZZ_CHECK(!error, "backend connection %zu got bytes our parser refuses", i);
    FUZZ_CHECK(heads <= accepted, "connection %zu got %zu requests, %zu accepted", i, heads,
               accepted);
    FUZZ_CHECK(heads < 2 || one_clean_response(opener.replies[i], written.starts_with("HEAD ")),
               "connection %zu reused after a bad or unfinished response", i);
    total += heads;
  }
  FUZZ_CHECK(total <= accepted * static_cast<std::size_t>(config.retries + 2),
             "backends got %zu requests, %zu accepted", total, accepted);
  const bool head_request = client_bytes.find("HEAD") != std::string_view::npos;
  if (!head_request && !h2) check_client_output(client_record.written);
  return 0;
}
