// A WebSocket echo server that records every data message it receives, so a test can check
// exactly what the generator sent (stampede serve only counts). 127.0.0.1, a port the kernel
// picks; one thread per connection (AcceptLoop), framing by ws::Session; every read is bounded by
// a receive timeout. The destructor ends every connection and joins the threads.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "support/accept_loop.h"

namespace stampede::testing {

struct ReceivedMessage {
  bool text = true;
  std::string payload;
};

class RecordingWsServer {
 public:
  RecordingWsServer();
  RecordingWsServer(const RecordingWsServer&) = delete;
  RecordingWsServer& operator=(const RecordingWsServer&) = delete;

  std::uint16_t port() const { return loop_.port(); }
  // Every data message received so far, over all connections, in the order they completed.
  std::vector<ReceivedMessage> messages() const;
  void record(bool text, std::string_view payload);

 private:
  void serve(int fd);

  mutable std::mutex mutex_;
  std::vector<ReceivedMessage> messages_;
  AcceptLoop loop_;  // last: its threads stop before what serve() uses goes
};

}  // namespace stampede::testing
