// WsClient: one client of a ws:// run, a state machine over one WebSocket at a time.
//
//   Idle -> Connecting -> [Securing (wss: CONNECT through --proxy, TLS handshake)] -> Handshaking
//   -> Awaiting (message sent, reply awaited) -> Awaiting ... -> Closing (our close sent, the
//   server's awaited) -> Finished
//
// Each permit from the worker is one message (with --index, its text carries the permit's
// index): sent, and its round trip (first byte written to the whole reply read) recorded, or
// recorded as one failure: transport errors by errno name, a refused upgrade by its status, a
// close by the server by its code, a protocol error by the code we closed with. After a failure the
// socket is dropped and the next permit opens a new one, after a backoff when the socket never
// carried a reply (as the HTTP Connection does). Framing goes through ws::Session (bytes in, bytes
// out); the read and write of the net::Stream its net::Connector yields are the only I/O calls:
// plain TCP for ws://, TLS for wss:// (as an https:// Connection: SNI, certificate check, the
// CONNECT tunnel through --proxy, and the last clean socket's session offered for resumption when
// the client reconnects after a failure), and for ws:// through --proxy the CONNECT tunnel alone.
// TLS failures are counted by their tls/errors.h names. A TLS record layer may block on the other
// direction (WANT_WRITE inside a read, WANT_READ inside a write): the client then retries on either
// readiness.
//
// Thread: the worker's, only. Owned by the HTTP Connection it stands in for (see connection.h);
// registered with the loop for its own socket.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "http/response_parser.h"
#include "loadgen/connection.h"
#include "loadgen/indexed_text.h"
#include "loadgen/ws_stats.h"
#include "net/connector.h"
#include "net/event_loop.h"
#include "ws/session.h"

namespace stampede::loadgen {

// The constant part of a ws:// run's traffic, built once by the runner.
struct WsPlan {
  std::string handshake_prefix;  // ws::request_prefix(): the upgrade request up to the key
  // Each message: with --index, its occurrences replaced by the message's permit index.
  IndexedText message;
  bool binary = false;  // sent as binary: the message is not valid UTF-8 (see make_ws_plan)
};

class WsClient final : public net::IoHandler, public ws::SessionHandler {
 public:
  explicit WsClient(const ConnectionContext& context);
  // With a given connector instead of make_connector(context)'s (a unit test's).
  WsClient(const ConnectionContext& context, std::unique_ptr<net::Connector> connector);
  ~WsClient();
  WsClient(const WsClient&) = delete;
  WsClient& operator=(const WsClient&) = delete;

  void start();
  // As Connection::stop_sending: finish now when no message is in flight, else after it.
  void stop_sending();
  bool finished() const { return state_ == State::Finished; }

  void on_events(std::uint32_t events) override;
  void on_message(const ws::Message& message) override;

 private:
  enum class State : std::uint8_t {
    Idle,
    Waiting,
    Connecting,
    Securing,
    Handshaking,
    Awaiting,
    Closing,
    Finished
  };

  void request_next();
  void begin();
  void open_socket();
  void on_connect_event();
  void connected();
  void secure_handshake();
  void send_handshake();
  net::IoStatus read_some(std::size_t& n);
  bool read_handshake();
  void send_message();
  bool write_pending();
  void read_frames(std::uint32_t events);
  bool check_session();
  void complete();
  void fail(int err);
  void fail_ws(WsFailure kind, int code);
  // --log: the line of the message in flight, ended at end_ns (a failure: `err` or `code`).
  void log_message(std::int64_t end_ns, int err, std::string_view code);
  void after_failure();
  void begin_close();
  void on_timer();
  void close_socket();
  void finish();
  void arm_timeout(std::int64_t from_ns);

  const ConnectionContext& context_;
  const WsPlan& plan_;
  std::unique_ptr<net::Connector> connector_;
  net::Stream* stream_ = nullptr;  // the connector's, while a socket is open
  bool secure_ = false;            // the connector has a handshake (wss, a tunnel) after connect
  http::ResponseParser parser_;
  ws::Session session_;
  net::Timer timer_;
  State state_ = State::Idle;
  std::string handshake_;    // this socket's upgrade request
  std::string key_;          // its Sec-WebSocket-Key
  std::string message_;      // the message rendered for index_ (--index), reused
  std::uint64_t index_ = 0;  // the permit's index, for the message in flight
  std::size_t written_ = 0;
  std::int64_t begin_ns_ = 0;      // the message began: connect started, or its first byte written
  std::int64_t start_ns_ = 0;      // its first byte written: the round trip counts from here
  std::uint64_t seed_ = 0;         // for keys and masks
  bool in_flight_ = false;         // a permit is taken and its message not yet recorded
  bool open_ = false;              // the handshake completed on this socket
  bool replied_ = false;           // this socket carried a reply
  bool replied_now_ = false;       // the reply arrived during the current Session::feed
  bool stopping_ = false;          // no more permits: close once the message in flight is done
  bool read_wants_write_ = false;  // TLS: the last read stopped for want of writability
  bool tls_failed_ = false;        // TLS: this socket failed in its record layer
  std::uint32_t failures_ = 0;     // consecutive failures without a reply, for the backoff
  // --log only: the socket's id, its connect's end, the bytes read since the message was sent.
  std::uint64_t socket_id_ = 0;
  std::int64_t connected_ns_ = 0;
  std::uint64_t received_ = 0;
};

}  // namespace stampede::loadgen
