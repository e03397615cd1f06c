// The Connection's --log line (loadgen/request_log.h), apart from the paths that do not log.
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

}  // namespace stampede::loadgen
