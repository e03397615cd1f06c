// Connection: one accepted client. Parses its requests in order (pipelining included), answers
// each at once or after its delay, refuses bad input with a status and a lingering close, and
// times out idle and slow clients.
//
// Ownership and threads: owned by its Worker, which pools the object; every method runs on the
// worker's thread. The connection owns its net::Stream (TcpStream, or tls::Stream under --tls-*)
// while open; the stream's descriptor is registered once, edge-triggered, for reading and
// writing.
// Responses of one activation go to the worker's shared output buffer and leave in one write;
// only what the socket did not take is copied into the connection's own buffer. Input is kept
// only when parsing has to pause (a delay, a full output buffer) in the middle of a read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "http/request_parser.h"
#include "net/event_loop.h"
#include "net/stream.h"
#include "server/decision.h"
#include "server/h2_connection.h"
#include "server/overrides.h"
#include "server/responses.h"
#include "server/socket_input.h"
#include "server/ws_connection.h"

namespace stampede::server {

class Worker;

class Connection final : public net::IoHandler {
 public:
  explicit Connection(Worker& worker);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Starts serving a connected stream: registers its descriptor with the loop. False when that
  // failed (the caller releases the connection).
  bool open(std::unique_ptr<net::Stream> stream);
  // Back to unused: timers cancelled, stream closed, buffers emptied. Called by the Worker.
  void release();
  // The server is stopping: close now when between requests, else after the current answer.
  void drain();

  void on_events(std::uint32_t events) override;

  int fd() const { return stream_->fd(); }
  std::size_t slot = 0;  // position in the worker's list of live connections

 private:
  // Where the connection is in its current request.
  enum class Phase : std::uint8_t {
    Idle,     // between requests (or before the first)
    Head,     // part of a request head received
    Body,     // head complete, body being read
    Delayed,  // request complete, its answer waits for the delay timer
  };
  // What the current request asked for, decided when its head completes.
  struct Request {
    Target target;
    bool head_only = false;
    bool http10 = false;  // an HTTP/1.0 request: keep-alive must be said, it is not the default
    bool keep_alive = true;
    Decision decision;
    std::int64_t completed_ns = 0;
  };

  void advance();
  void drain_input();
  bool read_once();
  std::size_t parse(const char* data, std::size_t length);
  void on_head();
  void on_message();
  void answer();
  void answer_normal(std::string& buffer, Framing framing);
  void refuse(int status, std::string_view message);
  bool flush();
  void finish_up();
  void start_linger();
  void close_now();
  void on_delay();
  void on_deadline();
  void arm_deadline();
  std::int64_t deadline() const;
  std::string& out();
  bool output_full() const;
  bool blocked() const;
  void accept_websocket();
  void start_websocket();
  bool sniff(const char* data, std::size_t n);
  void start_h2();

  Worker& worker_;
  std::unique_ptr<net::Stream> stream_;
  http::RequestParser parser_;
  net::Timer delay_timer_;
  net::Timer deadline_timer_;
  std::string in_;   // unparsed input kept while parsing is paused
  std::string out_;  // output the socket has not taken yet (from out_sent_ on)
  std::size_t out_sent_ = 0;
  Request request_;
  Phase phase_ = Phase::Idle;
  std::uint64_t requests_ = 0;       // requests answered on this connection
  std::uint64_t generation_ = 0;     // bumped on release: stale deferred work checks it
  std::int64_t phase_start_ns_ = 0;  // accept, or when the current head began
  std::int64_t last_activity_ns_ = 0;
  std::int64_t linger_deadline_ns_ = 0;
  std::uint32_t answered_in_batch_ = 0;  // answers appended since the last write
  std::int64_t batch_base_ns_ = 0;       // the first one's start time
  std::int64_t batch_offsets_ns_ = 0;    // sum of their start times after batch_base_ns_
  SocketInput input_;
  bool closing_ = false;    // no more requests: close once the output is written
  bool linger_ = false;     // ...after draining what the client still sends
  bool lingering_ = false;  // write side shut, discarding input until EOF or deadline
  bool draining_ = false;   // the server is stopping
  // WebSocket: the 101 answer is queued (upgrade_pending_), then ws_ has the connection.
  std::unique_ptr<WsConnection> ws_;  // made on the first upgrade, kept with the pooled object
  std::int64_t ws_delay_ns_ = 0;
  bool upgrade_pending_ = false;
  bool websocket_ = false;
  // HTTP/2 with prior knowledge: the first bytes are compared with the client preface until
  // they differ (sniffed_) or it is complete (h2_pending_); then h2_ has the connection.
  std::unique_ptr<H2Connection> h2_;  // made on the first switch, kept with the pooled object
  bool sniffed_ = false;
  bool h2_pending_ = false;
  bool http2_ = false;
};

}  // namespace stampede::server
