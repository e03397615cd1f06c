// ConnectedAtOnce: what the test connectors (fake_connector.h, stream_connector.h) share: the
// stream they hand a client is connected as soon as open() has it, so there is no connect in
// progress to answer and no TLS session to resume. A subclass's open() ends with
// `return connected_now(start_ns, connected);`.
#pragma once

#include <cstdint>

#include "net/connector.h"

namespace stampede::testing {

class ConnectedAtOnce : public net::Connector {
 public:
  int connect_result() override { return 0; }
  std::int64_t connected_ns() const override { return connected_ns_; }
  bool resumed() const override { return false; }

 protected:
  // Records `start_ns` as the time the connection was established and reports it connected.
  int connected_now(std::int64_t start_ns, bool& connected) {
    connected_ns_ = start_ns;
    connected = true;
    return 0;
  }

 private:
  std::int64_t connected_ns_ = 0;
};

}  // namespace stampede::testing
