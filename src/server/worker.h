// Worker: one thread's share of the server. Its own event loop, its own SO_REUSEPORT listener,
// its connections (pooled), its canned responses, its error spread and its counters.
//
// Threads: run() on the worker's thread; drain() from any thread; everything else (the
// accessors used by Connection) on the worker's thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/expected.h"
#include "net/event_loop.h"
#include "net/fd.h"
#include "net/stream.h"
#include "server/connection.h"
#include "server/error_spread.h"
#include "server/responses.h"
#include "server/shared.h"

namespace stampede::server {

class Worker final : public net::IoHandler {
 public:
  // Builds the loop and registers `listener` (non-blocking, already listening). Without a
  // listener (an empty Fd) the worker accepts nothing and serves only the streams given to
  // adopt(): the connection unit tests run it so, over in-memory streams.
  static Expected<std::unique_ptr<Worker>> create(Shared& shared, int index, net::Fd listener);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Serves until drained (or stopped at the drain deadline). Worker thread.
  void run();
  // Any thread: stop accepting, let in-flight requests finish within the drain timeout, stop.
  void drain();

  // The listener is readable: accepts what is pending.
  void on_events(std::uint32_t events) override;
  // Serves a connected stream (an accepted socket, or a test's in-memory stream): counts the
  // connection, takes a pooled Connection and registers the stream with the loop. Returns the
  // connection, or null when registering failed (the stream is closed then). Worker thread.
  Connection* adopt(std::unique_ptr<net::Stream> stream);
  // Connections open on this worker.
  std::size_t live_connections() const { return live_.size(); }

  // For the connections, on the worker's thread:
  net::EventLoop& loop() { return *loop_; }
  Shared& shared() { return shared_; }
  const ServerOptions& options() const { return shared_.options; }
  WorkerCounters& counters() { return counters_; }
  const Responses& responses() const { return responses_; }
  ErrorSpread& spread() { return spread_; }
  // Output of the connection being served; empty between activations.
  std::string& scratch_out() { return scratch_out_; }
  char* scratch_in() { return scratch_in_.data(); }
  std::size_t scratch_in_size() const { return scratch_in_.size(); }
  // Takes a connection out of service; the object goes back to the pool (never freed while
  // the loop runs, so a caller up the stack may still return through it).
  void close(Connection& connection);

 private:
  Worker(Shared& shared, int index, std::unique_ptr<net::EventLoop> loop, net::Fd listener);
  void accept_pending();
  // Closes (or resets, per --over-limit) a connection accepted past --max-connections.
  void refuse(net::Fd fd);
  void pause_accepting();
  void resume_accepting();
  bool at_capacity() const;
  void begin_drain();
  void refresh_date();
  Connection& acquire();

  std::unique_ptr<net::EventLoop> loop_;  // first: destroyed last, after every timer
  Shared& shared_;
  WorkerCounters& counters_;
  net::Fd listener_;
  Responses responses_;
  ErrorSpread spread_;
  std::string scratch_out_;
  std::vector<char> scratch_in_;
  net::Timer date_timer_;
  net::Timer accept_timer_;  // re-enables accepting after EMFILE and the like, or at the cap
  net::Timer drain_timer_;
  std::vector<std::unique_ptr<Connection>> pool_;  // owns every connection object
  std::vector<Connection*> free_;
  std::vector<Connection*> live_;
  bool accepting_ = true;
  bool draining_ = false;
};

}  // namespace stampede::server
