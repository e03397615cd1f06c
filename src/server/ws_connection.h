// WsConnection: the WebSocket life of a server connection after its 101 answer. Echoes every
// data message (text as text, binary as binary), each after the connection's delay (--delay,
// or ?delay= on the upgrade request); under --error/--percent the chosen messages are answered
// by a close with 1011 instead. Bad frames close with 1002/1007/1009 (see ws::Session). Every
// data message counts as one served request (/count), each 1011 close as an error too.
//
// Ownership and threads: owned by its Connection (pooled with it), which lends it its stream on
// upgrade (the Connection keeps owning it) and forwards its events; every method runs on the
// worker's thread. The stream's descriptor stays registered with the Connection as handler. Closing
// goes through Worker::close(connection), which calls release().
#pragma once

#include <cstdint>
#include <deque>
#include <string>

#include "net/event_loop.h"
#include "net/stream.h"
#include "server/socket_input.h"
#include "ws/session.h"

namespace stampede::server {

class Connection;
class Worker;

// What the HTTP side hands over at the switch.
struct WsHandover {
  net::Stream* stream = nullptr;  // owned by the Connection
  std::string output;             // not yet written: the 101 answer (and any earlier answers)
  std::string input;              // bytes read after the upgrade request (frames sent early)
  std::int64_t delay_ns = 0;
  SocketInput socket;  // what the HTTP side knew of the input side
};

class WsConnection final : public ws::SessionHandler {
 public:
  WsConnection(Worker& worker, Connection& owner);

  // Takes over the connection and makes all the progress it can (may close it).
  void start(WsHandover handover);
  void on_events(std::uint32_t events);
  // The server is stopping: close with 1001 Going Away.
  void drain();
  // Back to unused (from Connection::release): timers cancelled, buffers emptied.
  void release();

  void on_message(const ws::Message& message) override;

 private:
  struct Delayed {
    std::int64_t due_ns;
    bool text;
    std::string payload;
  };

  void advance();
  bool read_once();
  bool flush();
  void finish_up();
  void close_now();
  void on_delay();
  void on_deadline();
  void arm_deadline();
  std::int64_t deadline() const;
  bool input_paused() const;

  Worker& worker_;
  Connection& owner_;
  net::Stream* stream_ = nullptr;
  ws::Session session_;
  net::Timer delay_timer_;
  net::Timer deadline_timer_;
  std::string prefix_;  // HTTP output still to write before the first frame
  std::size_t prefix_sent_ = 0;
  std::deque<Delayed> delayed_;  // echoes waiting for their time, oldest first
  std::size_t delayed_bytes_ = 0;
  std::int64_t delay_ns_ = 0;
  std::int64_t last_activity_ns_ = 0;
  std::int64_t close_deadline_ns_ = 0;  // once we closed: the bound on the peer's answer
  SocketInput input_;
  bool active_ = false;
  bool shut_ = false;             // our FIN is sent
  std::uint64_t generation_ = 0;  // bumped on release: stale deferred work checks it
};

}  // namespace stampede::server
