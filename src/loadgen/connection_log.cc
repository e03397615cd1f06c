// The Connection's --log lines (loadgen/request_log.h): one request's, and a pipelined one's.
#include <algorithm>

#include "loadgen/connection.h"

namespace stampede::loadgen {

LogLine Connection::log_line(std::int64_t end_ns) const {
  LogLine line;
  line.index = index_;
  line.connection = socket_id_;
  line.intended_ns = context_.paced ? intended_ns_ : 0;  // closed loop: no schedule
  line.start_ns = begin_ns_;
  line.connected_ns = connected_ns_;
  line.sent_ns = start_ns_;
  // The loop's reading of the wake-up that read them, which may be older than the write when the
  // response was read right after it: never before the request was sent.
  line.first_byte_ns = first_byte_ns_ != 0 ? std::max(first_byte_ns_, start_ns_) : 0;
  line.end_ns = end_ns;
  line.bytes = received_;
  return line;
}

void Connection::log_flight(const FlightEntry& entry, std::int64_t end_ns, int status, int err,
                            std::string_view code) {
  LogLine line;
  line.index = entry.index;
  line.connection = socket_id_;
  line.intended_ns = context_.paced ? entry.intended_ns : 0;
  line.start_ns = entry.begin_ns != 0 ? entry.begin_ns : end_ns;  // queued, never written
  // The request that opened the socket began at its connect's start, before its write; the
  // others begin with their write. connected_ns_ is this socket's once its connect completed.
  const bool opened = entry.begin_ns != 0 && entry.begin_ns != entry.written_ns;
  if (opened && connected_ns_ >= entry.begin_ns) line.connected_ns = connected_ns_;
  line.sent_ns = entry.written_ns;
  if (first_byte_ns_ != 0) line.first_byte_ns = std::max(first_byte_ns_, entry.written_ns);
  line.end_ns = end_ns;
  line.status = status;
  line.err = err;
  line.code = code;
  line.bytes = received_;
  context_.log->append(line);
  // What was read belongs to this (the oldest) request: none of it to those behind it.
  received_ = 0;
  first_byte_ns_ = 0;
}

}  // namespace stampede::loadgen
