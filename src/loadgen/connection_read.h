// read_available: the read loop of the generator's clients (Connection, plain and pipelined,
// WsClient's frames, H2Client): reads an edge-triggered stream into the worker's read buffer
// (ConnectionContext::read_buffer) until there is nothing more to read now, counting the bytes
// received in the worker's stats and handing each chunk to on_bytes(const char*, std::size_t),
// which returns false once the client is done reading (its request ended, the socket closed).
//
// Returns how the loop ended:
//   Drained   a short read emptied the socket: the next bytes bring a new edge. After a hang-up
//             in `events` a short read does not end it: the EOF still has to be read.
//   WouldBlock, Eof, Error   what the stream said (the caller asks it for its error).
//   Stopped   on_bytes returned false: the stream may be gone, the caller touches it no more.
//
// Thread: the client's worker's. Inline: it is the per-request path.
#pragma once

#include <cstddef>
#include <cstdint>

#include "loadgen/connection.h"
#include "net/poller.h"
#include "net/stream.h"

namespace stampede::loadgen {

enum class ReadEnd : std::uint8_t { Drained, WouldBlock, Eof, Error, Stopped };

template <class OnBytes>
ReadEnd read_available(net::Stream& stream, const ConnectionContext& context, std::uint32_t events,
                       OnBytes&& on_bytes) {
  char* buffer = context.read_buffer.data();
  const std::size_t capacity = context.read_buffer.size();
  for (;;) {
    std::size_t n = 0;
    switch (stream.read(buffer, capacity, n)) {
      case net::IoStatus::Done:
        break;
      case net::IoStatus::WouldBlock:
        return ReadEnd::WouldBlock;
      case net::IoStatus::Eof:
        return ReadEnd::Eof;
      case net::IoStatus::Error:
        return ReadEnd::Error;
    }
    context.stats->add_bytes(n, 0);
    if (!on_bytes(static_cast<const char*>(buffer), n)) return ReadEnd::Stopped;
    if (n < capacity && !(events & net::kHangupEvents)) return ReadEnd::Drained;
  }
}

}  // namespace stampede::loadgen
