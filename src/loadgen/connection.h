// Connection: one client of a worker, a state machine over one socket at a time.
//
//   Waiting -> Connecting -> Writing -> Reading -> (keep-alive: next request on the same socket |
//   close: Draining until the server's FIN, then a new socket) ... -> Finished
//
// Every socket is registered once with the worker's loop, edge-triggered (IN|OUT|RDHUP|ET):
// no epoll_ctl per request. A keep-alive request costs one write and one read in the steady
// state. The response body is parsed in the worker's read buffer and dropped, never copied.
// Each request ends in exactly one record in WorkerStats (a response or a failure), except when
// the worker abandons requests in flight at the end of a -t run or on an interrupt.
//
// Pipelined (ConnectionContext::pipeline > 1, keep-alive only; connection_pipeline.cc): up to N
// requests in flight, their bytes written together (one write for every permit it takes at
// once), each with its own times in an InFlight ring. Closed loop, it takes N permits only when
// its flight is empty: batches of N (the last may be short), the next written once every
// request of the last is answered. Paced (--rps), it takes every due permit while fewer than N
// are in flight: after each read the answered requests are replaced by those due, in one write,
// so the connection keeps the schedule. A connection that ends with requests
// unanswered counts each once: the oldest under the failure that ended it (ECONNRESET...), the
// others as kUnanswered; then it reconnects. A new socket carries one request until connected.
//
// Thread: the worker's, only. Owned by its Worker; the loop, the context and what it points to
// outlive every Connection.
#pragma once

#include <openssl/types.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "http/response_parser.h"
#include "loadgen/connection_permit.h"
#include "loadgen/hooks.h"
#include "loadgen/in_flight.h"
#include "loadgen/request.h"
#include "loadgen/request_log.h"
#include "loadgen/worker_stats.h"
#include "net/connector.h"
#include "net/event_loop.h"
#include "net/socket.h"

namespace stampede::loadgen {

struct WsPlan;
class WsClient;
class H2Request;
class H2Client;

// Shared by the connections of one worker.
struct ConnectionContext {
  net::EventLoop* loop = nullptr;
  ConnectionOwner* owner = nullptr;
  WorkerStats* stats = nullptr;
  const RequestTemplate* request = nullptr;
  net::Address address;
  std::span<char> read_buffer;  // the worker's: a connection uses it only inside on_events
  bool keep_alive = false;
  bool head_request = false;    // responses have no body
  std::int64_t timeout_ns = 0;  // per request, from its first byte sent (or connect); 0: none
  bool paced = false;           // --rps: latency counts from the permit's intended time (corrected)
  std::vector<std::string> count_headers;  // response headers whose values are counted
  // https, wss: the run's client context (null for http://, ws://), the name for SNI and the
  // certificate; through a proxy the CONNECT request that opens the tunnel (https, ws, wss).
  // Each client's net::Connector is made from these (loadgen/connector.h).
  SSL_CTX* tls = nullptr;
  std::string server_name;
  std::string connect_request;
  const WsPlan* websocket = nullptr;  // ws:// runs: each client is a WsClient
  // --http2 runs: each client is an H2Client sending this request, with up to `streams` (1 to
  // kMaxStreams) in flight per connection.
  const H2Request* h2 = nullptr;
  std::uint32_t streams = 1;
  // The first stream id of each HTTP/2 connection (odd, 1 to 2^31 - 1): 1, but for tests of the
  // end of a connection's stream ids.
  std::uint32_t h2_first_stream_id = 1;
  // --pipeline: requests in flight per connection, 1 to kMaxPipeline; more than 1 needs
  // keep_alive and no websocket or hook_set (Config's validate() refuses the rest).
  std::uint32_t pipeline = 1;
  const HookSet* hook_set = nullptr;  // Config::hooks; null: no hook work at all
  RequestHook* hook = nullptr;        // the worker's, when hook_set is set
  std::uint32_t worker = 0;           // the worker's id, for RequestOutcome
  WorkerLog* log = nullptr;  // --log: the worker's, one line per record (null: no log work)
};

// A request its hook could not make (generate() failed, or over HTTP/2 its bytes are not a
// request HTTP/2 can carry) is not sent: it counts once as the error `error`, with its send lag,
// in the stats and the log, and stops the run when the hook halted. Shared by Connection and
// H2Client (connection_hooks.cc); the caller backs off.
void record_unsent(const ConnectionContext& context, const SendPermit& permit,
                   std::string_view error);

// The error code of a pipelined request still unanswered when its connection ended behind an
// older one (that one has the failure's own code) or behind a response that closed it.
inline constexpr std::string_view kUnanswered = "PIPELINE_UNANSWERED";

class Connection final : public net::IoHandler {
 public:
  explicit Connection(const ConnectionContext& context);
  // With a given connector instead of make_connector(context)'s (a unit test's, over a
  // TestStream). Not for ws:// contexts.
  Connection(const ConnectionContext& context, std::unique_ptr<net::Connector> connector);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Asks for the first permit and starts.
  void start();
  // The worker sends nothing more: a connection without a request in flight finishes now; one
  // with a request in flight finishes after it (its next permit says stop).
  void stop_sending();
  bool finished() const;
  // Sends the permit given to ConnectionOwner::hold; nothing if it no longer holds one (it was
  // told to stop meanwhile).
  void send_pending();

  void on_events(std::uint32_t events) override;

 private:
  enum class State : std::uint8_t {
    Idle,
    Waiting,
    Connecting,
    Writing,
    Reading,
    Draining,
    Finished
  };

  // Takes the next permit: sends now, holds it until due, or finishes. after_busy: the
  // connection was carrying a request (or backing off) until now, so a permit already due
  // waited for it (SendPermit::waited_for_connection); false for the connection's first.
  void request_next(bool after_busy = true);
  void begin(const SendPermit& permit);
  void mark_begin(std::int64_t now_ns);
  void open_socket();
  void on_connect_event();
  // The TCP connection is up: counts it, with its connect time.
  void connected();
  void write_request();
  void read_response(std::uint32_t events);
  // Feeds bytes to the parser; true when the request ended (completed or failed).
  bool consume(const char* data, std::size_t length);
  void on_eof();
  void complete();
  void fail(int err);
  void drain(std::uint32_t events);
  void on_timer();
  void close_socket();
  void finish();
  void arm_timeout(std::int64_t from_ns);
  // https: runs the CONNECT exchange and the handshake (the connector's); true once requests
  // can go.
  bool secure_handshake();
  // connection_hooks.cc: the RequestHook calls, made only when context_.hook_set is set.
  bool generate(const SendPermit& permit);
  // The latencies are those just recorded in the stats (RequestOutcome).
  std::string_view notify_hook(int status, int err, std::int64_t latency_ns,
                               std::int64_t uncorrected_ns);
  void backoff();
  // connection_log.cc, --log only: the line of the request in flight, ending at end_ns, from
  // what the connection measured of it (the caller adds its outcome).
  LogLine log_line(std::int64_t end_ns) const;
  // The line of a pipelined request that ended at end_ns; the response bytes and first byte
  // read so far are the oldest request's, and its line takes them (received_, first_byte_ns_).
  void log_flight(const FlightEntry& entry, std::int64_t end_ns, int status, int err,
                  std::string_view code);

  // connection_pipeline.cc: the pipelined path (context_.pipeline > 1).
  // Takes permits up to N in flight (closed loop: only once the flight is empty) and writes
  // them (or connects first), or finishes.
  void fill(bool after_busy);
  // Appends permits to batch_ until `depth` are in flight: a held permit once the owner released
  // it, then due ones; stops at one not yet due (held) or when the owner says stop.
  void take_permits(std::size_t depth, bool after_busy);
  // The batch's write begins at now_ns: tops it up (after a connect) and stamps its requests.
  void start_batch(std::int64_t now_ns);
  void read_pipelined(std::uint32_t events);
  // Feeds bytes read at end_ns; false when the connection ended (a failure, or a response that
  // closes it).
  bool consume_pipelined(const char* data, std::size_t length, std::int64_t end_ns);
  void complete_front(std::int64_t end_ns);
  // The connection ends with requests unanswered: each counted once (see kUnanswered); err 0:
  // no failure (the server closed after a response), all are kUnanswered.
  void abandon_flight(int err, std::int64_t end_ns);
  void fail_pipelined(int err);
  void eof_pipelined();
  // The socket is done with (closed with what it carried counted): reconnect, or back off when
  // it never delivered a response.
  void reconnect(bool responded);

  // RequestOutcome::response over the parser's captures.
  class ParsedHeaders final : public ResponseHeaders {
   public:
    explicit ParsedHeaders(const http::ResponseParser& parser) : parser_(parser) {}
    std::optional<std::string_view> header(std::string_view name) const override {
      return parser_.header(name);
    }

   private:
    const http::ResponseParser& parser_;
  };

  const ConnectionContext& context_;
  std::unique_ptr<net::Connector> connector_;  // null for ws:// (the WsClient has its own)
  net::Stream* stream_ = nullptr;              // the connector's, while a socket is open
  bool secure_ = false;   // the connector has a handshake (https) after each connect
  bool secured_ = false;  // ...and it is done on this socket (always true without one)
  http::ResponseParser parser_;
  ParsedHeaders parsed_headers_{parser_};
  net::Timer timer_;
  State state_ = State::Idle;

  std::string rendered_;      // the request, when it varies per request (--index)
  std::string_view request_;  // the bytes being sent
  std::size_t written_ = 0;
  std::int64_t begin_ns_ = 0;       // the request began: connect started, or first byte on reuse;
                                    // latency (uncorrected), timeouts and failures count from here
  std::int64_t start_ns_ = 0;       // first byte written: time to first byte counts from here
  std::int64_t first_byte_ns_ = 0;  // the loop's time when the response's first bytes were read
  std::int64_t intended_ns_ = 0;    // the permit's time: with --rps latency counts from here
  std::int64_t connected_ns_ = 0;   // this request opened the socket: its connect completed
  std::uint64_t received_ = 0;      // bytes of this request's response the parser took
  std::uint64_t socket_id_ = 0;     // --log: the open socket's id (WorkerLog::next_connection)
  bool waited_for_connection_ = false;  // the permit's (SendPermit::waited_for_connection)
  HeldPermit held_;                     // a permit waiting for its time (held by the owner)
  bool readable_ = false;       // data arrived while not reading (edge-triggered: remember it)
  bool peer_closed_ = false;    // EOF or RDHUP seen on this socket
  bool unusable_ = false;       // extra bytes after a response: do not reuse
  bool responded_ = false;      // this socket delivered a complete response
  std::uint32_t failures_ = 0;  // consecutive failures without a response, for the backoff

  // ws:// runs: the WebSocket client this connection stands for (it has its own socket).
  std::unique_ptr<WsClient> ws_;
  // --http2 runs: the HTTP/2 client this connection stands for (it takes connector_).
  std::unique_ptr<H2Client> h2_;
  std::uint64_t index_ = 0;  // the index of the request in flight
  bool head_ = false;        // a generated HEAD request is in flight
  std::string body_;         // the response body, when HookSet::capture_body

  // Pipelined only (context_.pipeline > 1).
  InFlight flight_;            // requests taken, oldest first (the last unwritten_ not written)
  std::string batch_;          // the bytes of the requests being written together
  std::size_t unwritten_ = 0;  // entries at the back of flight_ whose write has not begun
  bool no_more_ = false;       // the owner said stop: finish once flight_ is empty
};

}  // namespace stampede::loadgen
