// SocketInput: what a server connection knows about the input side of its edge-triggered
// stream, and its reads; shared by Connection and WsConnection (the HTTP side hands it over at
// the switch to WebSocket). Used on the connection's worker thread only.
#pragma once

#include <sys/epoll.h>

#include <cstddef>
#include <cstdint>

#include "net/socket.h"
#include "net/stream.h"

namespace stampede::server {

// Reads per activation before a connection yields to the other connections of its worker.
inline constexpr int kReadsPerActivation = 64;
// Unwritten output above this stops reading and parsing until the client has read some (a
// client that sends, or pipelines, faster than it reads).
inline constexpr std::size_t kOutputHighWater = 256 * 1024;

struct SocketInput {
  bool unread = false;  // the socket may hold bytes not read yet (edge-triggered)
  bool hup = false;     // the peer closed its side: read on to the end of the stream
  bool eof = false;     // a read returned the end of the stream
  // The last read waited for the socket to take bytes (TLS WANT_WRITE inside a read): it goes
  // on at the next writable event, which may be the only one to come.
  bool read_wants_write = false;

  // Notes a readiness event. False on EPOLLERR: the connection closes.
  bool on_events(std::uint32_t events) {
    if (events & EPOLLERR) return false;
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)) unread = true;
    if ((events & EPOLLOUT) && read_wants_write) {
      unread = true;
      read_wants_write = false;
    }
    if (events & (EPOLLRDHUP | EPOLLHUP)) hup = true;
    return true;
  }

  // One read of up to `capacity` bytes into `buffer`; notes what it says about the socket. A
  // short read drained the socket, unless the peer closed: then reading goes on to see EOF.
  net::IoStatus read(net::Stream& stream, char* buffer, std::size_t capacity, std::size_t& n) {
    const net::IoStatus status = stream.read(buffer, capacity, n);
    switch (status) {
      case net::IoStatus::Done:
        if (n < capacity && !hup) unread = false;
        break;
      case net::IoStatus::WouldBlock:
        unread = false;
        read_wants_write = stream.wants_write();
        break;
      case net::IoStatus::Eof:
        unread = false;
        eof = true;
        break;
      case net::IoStatus::Error:
        break;
    }
    return status;
  }
};

}  // namespace stampede::server
