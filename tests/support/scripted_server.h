// ScriptedServer: a tiny HTTP/1.1 test server on 127.0.0.1 (port 0), on a thread of its own,
// that answers each request with canned raw bytes chosen by a script. It produces what a normal
// server never does (close-delimited bodies, 1xx, a close in the middle of a response, garbage,
// slow or missing answers) so the load generator can be tested against edge cases.
//
// Requests are framed by their head ("\r\n\r\n") and Content-Length; nothing else is parsed.
// The counters are safe to read from any thread. The destructor stops and joins the thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace stampede::testing {

struct ScriptedReply {
  std::string bytes{};                 // written as they are, after the request arrived
  bool close_after = false;            // close the connection once `bytes` are written
  std::chrono::milliseconds delay{0};  // wait this long before answering
  bool silent = false;                 // never answer (the connection stays open)
  // At most this many bytes per send() (1: byte at a time), with TCP_NODELAY so that each
  // leaves as its own segment; 0: as many as the socket takes.
  std::size_t piece = 0;
  // Instead of close_after's close: once `bytes` are written, shut writing (the peer reads EOF),
  // read and drop what the peer still sends, and close when it closes. A close with the peer's
  // bytes unread would make the kernel answer them with a reset, which the peer may read before
  // the EOF: this makes "the server ended the connection" read as EOF every time.
  bool half_close_after = false;
};

// 200 "OK" with Content-Length; "Connection: close" and a close when `request` asked for it.
ScriptedReply ok_reply(const std::string& request);

class ScriptedServer {
 public:
  // `script(index, request)` is called on the server thread for each request (index from 0).
  using Script = std::function<ScriptedReply(std::uint64_t index, const std::string& request)>;

  explicit ScriptedServer(Script script);
  // Listening on `address` (IPv4) of this thread's network namespace instead of 127.0.0.1.
  ScriptedServer(Script script, std::string address);
  ~ScriptedServer();
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  std::uint16_t port() const { return port_; }
  std::string url(const std::string& path = "/") const;
  std::uint64_t requests() const { return requests_.load(); }
  std::uint64_t connections() const { return connections_.load(); }
  // The last request received (head and body).
  std::string last_request() const;
  // Answers done with: every byte written, or the connection closed with some unwritten.
  std::uint64_t replies_settled() const;
  // Waits (at most `timeout`) until replies_settled() reaches `count`; false on timeout.
  bool wait_settled(std::uint64_t count, std::chrono::milliseconds timeout) const;

 private:
  struct Client;
  void serve();
  void on_readable(Client& client);
  void take_requests(Client& client);
  bool flush(Client& client);
  void settle(Client& client);

  Script script_;
  std::string address_ = "127.0.0.1";
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  std::uint16_t port_ = 0;
  std::atomic<std::uint64_t> requests_{0};
  std::atomic<std::uint64_t> connections_{0};
  mutable std::mutex last_mutex_;
  std::string last_request_;
  mutable std::condition_variable settled_changed_;
  std::uint64_t settled_ = 0;  // guarded by last_mutex_
  std::thread thread_;
};

// A 127.0.0.1 port on which nothing listens (bound, not listening, while the object lives):
// connecting to it is refused.
// Scripts for the common cases: every request answered ok_reply(request); every request answered
// `reply`; ok_reply(request) delayed by `delay` for the requests from index `from` on.
ScriptedServer::Script answer_ok();
ScriptedServer::Script answer_always(ScriptedReply reply);
ScriptedServer::Script answer_ok_after(std::chrono::milliseconds delay, std::uint64_t from = 0);

class RefusedPort {
 public:
  RefusedPort();
  ~RefusedPort();
  RefusedPort(const RefusedPort&) = delete;
  RefusedPort& operator=(const RefusedPort&) = delete;
  std::uint16_t port() const { return port_; }

 private:
  int fd_ = -1;
  std::uint16_t port_ = 0;
};

}  // namespace stampede::testing
