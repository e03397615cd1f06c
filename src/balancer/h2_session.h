// H2Session: the HTTP/2 life of a client connection whose first bytes were the client preface
// (h2c with prior knowledge; ProxySession sniffs them, h2/preface.h, and hands the connection
// over) or whose TLS handshake selected "h2" by ALPN. nghttp2 1.52 drives the frames
// (mem_recv/mem_send, h2/session_options.h); each request stream is an H2Stream balanced on its own
// (h2_stream.h): requests, not connections, are what the policy spreads.
//
// Settings and limits: SETTINGS_MAX_CONCURRENT_STREAMS --max-streams (nghttp2 refuses a stream
// past it: REFUSED_STREAM before our SETTINGS are acknowledged, GOAWAY PROTOCOL_ERROR after), a
// header list of at most 16 KiB (the HTTP/1.1 front's head limit; more, as an HPACK bomb decodes
// to, ends the session with GOAWAY ENHANCE_YOUR_CALM), stream windows of kStreamWindow consumed as
// backends take request bodies, a connection window of 2^30-1. Floods of SETTINGS, PING, RST_STREAM
// (the rapid reset of CVE-2023-44487) or empty frames (h2/flood_guard.h) end it with GOAWAY
// ENHANCE_YOUR_CALM; protocol errors with nghttp2's GOAWAY. Requests are dispatched after a whole
// read has been processed, so a stream opened and reset in one read never reaches a backend. Output
// is taken from nghttp2 only while less than 64 KiB wait for the socket.
//
// Writing: once per loop iteration. Whatever enters the session (the client's bytes, a
// backend's answer for any of its streams, a tick) only queues frames with nghttp2 and arms the
// session's flush timer for now; the timer fires after the iteration's I/O dispatch (the loop
// fires timers after its events, event_loop.h), takes every frame the streams that progressed
// in it produced and writes them with one write. So ten streams answered by their backends in
// one iteration cost the client one write, not ten. While the socket is full (a short write),
// nothing is written until its EPOLLOUT.
//
// Timeouts: --header-timeout until the first request head; --client-timeout while no stream is
// open (then GOAWAY NO_ERROR and close); each stream keeps its own (H2Stream::on_tick).
//
// Ownership and threads: owned by its ProxySession, which forwards the client's events and the
// sweep's ticks; the worker's thread only. It closes the connection through
// ProxySession::close_connection(). Closed streams are kept until the next event enters the
// session, so none is freed while its own code is on the stack.
#pragma once

#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "balancer/buffer.h"
#include "balancer/h2_heads.h"
#include "h2/flood_guard.h"
#include "net/event_loop.h"
#include "net/stream.h"

namespace stampede::balancer {

class H2Stream;
class ProxySession;
class Worker;

// What the HTTP/1.1 side knows at the switch.
struct H2Start {
  std::string_view input;  // bytes read so far: the preface and what followed it
  bool readable = false;   // the socket may hold more
  bool peer_closed = false;
  bool eof = false;
};

class H2Session {
 public:
  // `proto`: what X-Forwarded-Proto says ("http", "https"); a string with static storage.
  H2Session(Worker& worker, ProxySession& owner, net::Stream& client, std::string_view client_ip,
            std::string_view proto);
  ~H2Session();
  H2Session(const H2Session&) = delete;
  H2Session& operator=(const H2Session&) = delete;

  void start(const H2Start& start);
  void on_events(std::uint32_t events);
  void on_tick(std::int64_t now_ns);
  // The connection is closing: every stream's attempt is cancelled, nothing more is sent.
  void shutdown();

  // For streams.
  nghttp2_session* session() { return session_; }
  const std::string& client_ip() const { return client_ip_; }
  std::string_view proto() const { return proto_; }
  // Gives `bytes` of stream `id`'s window back to the client.
  void consume(std::int32_t id, std::size_t bytes);
  // The stream wants service() after the current batch of input (or now, from a timer).
  void want_service(H2Stream& stream);
  void want_pump(std::int32_t id) { pump_.push_back(id); }
  // An upstream event for `stream`: handled; what it produced goes out with the iteration's write.
  void upstream_entry(H2Stream& stream, std::uint32_t events);
  // Where a stream translates its response head (nghttp2 copies what is submitted): one per
  // session, reused, so a response head costs no allocation.
  struct HeadScratch {
    H2ResponseHead head;
    std::vector<nghttp2_nv> nv;
  };
  HeadScratch& head_scratch() { return head_scratch_; }
  // Buffers for a new stream's byte queues, from those of finished streams when there are any,
  // and back (cleared) when a stream ends: at most kSpareBuffers wait, none larger than
  // kSpareCapacity, so a connection keeps at most 512 KiB of them.
  Buffer lend_buffer();
  void give_back(Buffer&& buffer);

  struct Callbacks;  // nghttp2's (h2_session.cc)

 private:
  void enter();
  void advance();
  bool read_once();
  bool flush();
  void serve_ready();
  void finish_up();
  void close();
  void end_session(std::uint32_t error_code);
  H2Stream* find(std::int32_t id);
  void stream_closed(std::int32_t id);
  bool output_full() const { return out_.size() >= kOutputHighWater; }
  bool take();
  void settle();
  void on_flush();

  static constexpr std::size_t kOutputHighWater = 64 * 1024;
  static constexpr std::size_t kSpareBuffers = 32;
  static constexpr std::size_t kSpareCapacity = 16 * 1024;

  Worker& worker_;
  ProxySession& owner_;
  net::Stream& client_;
  std::string client_ip_;
  std::string_view proto_;
  nghttp2_session* session_ = nullptr;
  std::vector<Buffer> spare_;  // declared before the streams: they give their buffers back
  std::unordered_map<std::int32_t, std::unique_ptr<H2Stream>> streams_;
  HeadScratch head_scratch_;
  std::vector<std::unique_ptr<H2Stream>> dead_;
  std::vector<std::int32_t> ready_;  // streams to service() after this input
  std::vector<std::int32_t> pump_;   // streams whose client took buffered bytes
  std::vector<std::int32_t> batch_;  // serve_ready()'s working copy (kept for its capacity)
  net::Timer flush_timer_{[this] { on_flush(); }};  // the iteration's one write
  h2::FloodGuard flood_;
  Buffer in_;
  Buffer out_;
  std::int64_t start_ns_ = 0;
  std::int64_t last_activity_ns_ = 0;
  bool readable_ = false;
  bool peer_closed_ = false;
  bool read_wants_out_ = false;
  bool blocked_ = false;  // a write came up short: wait for EPOLLOUT
  bool eof_ = false;
  bool got_headers_ = false;
  bool closing_ = false;  // close once the output is written
  bool closed_ = false;
  bool in_advance_ = false;
};

}  // namespace stampede::balancer
