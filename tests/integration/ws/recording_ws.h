// A WebSocket echo server that records every data message it receives, so a test can check
// exactly what the generator sent (stampede serve only counts). 127.0.0.1, a port the kernel
// picks; one thread per connection, framing by ws::Session; every read is bounded by a receive
// timeout. The destructor ends every connection and joins the threads.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "net/fd.h"

namespace stampede::testing {

struct ReceivedMessage {
  bool text = true;
  std::string payload;
};

class RecordingWsServer {
 public:
  RecordingWsServer();
  ~RecordingWsServer();
  RecordingWsServer(const RecordingWsServer&) = delete;
  RecordingWsServer& operator=(const RecordingWsServer&) = delete;

  std::uint16_t port() const { return port_; }
  // Every data message received so far, over all connections, in the order they completed.
  std::vector<ReceivedMessage> messages() const;
  void record(bool text, std::string_view payload);

 private:
  void accept_loop();
  void serve(int fd);

  net::Fd listen_;
  std::uint16_t port_ = 0;
  mutable std::mutex mutex_;
  std::vector<ReceivedMessage> messages_;
  std::vector<net::Fd> clients_;  // closed by the destructor, after their threads ended
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

}  // namespace stampede::testing
