// H2Connection: the HTTP/2 life of a server connection whose first bytes were the client
// preface (h2c with prior knowledge) or whose TLS handshake chose "h2". Every request stream is
// answered by the same rule as HTTP/1.1 (server/decision.h), each after its own delay (a timer
// per stream), so concurrent streams wait independently. The session is nghttp2's
// (mem_recv/mem_send, h2/session_options.h): SETTINGS_MAX_CONCURRENT_STREAMS is --max-streams,
// windows are 2^30-1.
//
// Limits and defences: a header block over --max-header-bytes (an HPACK bomb), a flood of
// SETTINGS/PING/RST_STREAM/empty frames (h2/flood_guard.h) end the session with GOAWAY
// ENHANCE_YOUR_CALM; protocol errors with nghttp2's GOAWAY; a request body over
// --max-body-bytes gets 413 and its stream is reset (NO_ERROR). A connection that sends no
// complete HEADERS within --header-timeout is closed, and so is one idle for --idle-timeout
// with no answer waiting for its delay. Output is produced only while less than 64 KiB wait
// for the socket, and bodies are generated as the peer's window allows: a peer that never
// reads or never opens its window holds no more than that.
//
// Ownership and threads: owned by its Connection (pooled with it), which lends it its stream
// and forwards its events; every method runs on the worker's thread. Closing goes through
// Worker::close(connection), which calls release().
#pragma once

#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "h2/flood_guard.h"
#include "net/event_loop.h"
#include "net/stream.h"
#include "server/decision.h"
#include "server/socket_input.h"

namespace stampede::server {

class Connection;
class Worker;

// What the HTTP/1.1 side hands over at the switch.
struct H2Handover {
  net::Stream* stream = nullptr;  // owned by the Connection
  std::string input;              // bytes read so far: the preface and what followed it
  SocketInput socket;
};

class H2Connection {
 public:
  H2Connection(Worker& worker, Connection& owner);
  ~H2Connection();
  H2Connection(const H2Connection&) = delete;
  H2Connection& operator=(const H2Connection&) = delete;

  // Takes over the connection and makes all the progress it can (may close it).
  void start(H2Handover handover);
  void on_events(std::uint32_t events);
  // The server is stopping: GOAWAY, finish the streams already open, then close.
  void drain();
  // Back to unused (from Connection::release): session freed, timers cancelled.
  void release();

  struct Exchange;  // one request stream (h2_connection.cc)
  struct Callbacks;

 private:
  void advance();
  bool read_once();
  bool flush();
  void finish_up();
  void close_now();
  void end_session(std::uint32_t error_code);
  void on_deadline();
  void arm_deadline();
  std::int64_t deadline() const;
  void on_request(Exchange& x);
  void on_delay(std::int32_t stream_id);
  void answer(Exchange& x);
  void refuse_body(Exchange& x);
  bool submit(Exchange& x, int status, std::string_view content_type);
  bool output_full() const { return out_.size() - out_sent_ >= kOutputHighWater; }

  static constexpr std::size_t kOutputHighWater = 64 * 1024;

  Worker& worker_;
  Connection& owner_;
  net::Stream* stream_ = nullptr;
  nghttp2_session* session_ = nullptr;
  std::unordered_map<std::int32_t, std::unique_ptr<Exchange>> exchanges_;
  h2::FloodGuard flood_;
  net::Timer deadline_timer_;
  std::string out_;
  std::size_t out_sent_ = 0;
  std::size_t delayed_ = 0;  // streams whose answer waits for its timer
  std::int64_t start_ns_ = 0;
  std::int64_t last_activity_ns_ = 0;
  SocketInput input_;
  bool active_ = false;
  bool got_headers_ = false;  // a complete HEADERS frame arrived
  bool closing_ = false;      // close once the output is written
  std::uint64_t generation_ = 0;
};

}  // namespace stampede::server
